// One reason a desired spec is refused: a JSON Pointer into the spec ("" = the spec itself) and a
// sentence. validate returns these as diagnostics; prepare and apply turn them into refusals.
export interface SpecProblem {
  readonly pointer: string;
  readonly message: string;
}
