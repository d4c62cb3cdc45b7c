// The identifier grammars live in src/common: the provider checks names and SpaceIDs offline
// with exactly the rules the Host applies.
export * from '../common/grammar.js';
