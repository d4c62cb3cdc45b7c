// Attribute and type names: snake_case that keeps acronyms and well-known compound words
// whole, and the `spec_` prefix for names the envelope or Terraform already uses.
import { describe, expect, it } from 'vitest';
import { defaultTypeName, snakeCase, topLevelAttributeName } from '../../../src/plugin/schema/names.js';

describe('names', () => {
  it.each([
    ['externalServices', 'external_services'],
    ['HTTPRoute', 'http_route'],
    ['URLPath', 'url_path'],
    ['SQLiteDatabase', 'sqlite_database'],
    ['SQLiteMigrationApplication', 'sqlite_migration_application'],
    ['useSQLite', 'use_sqlite'],
    ['PostgreSQLCluster', 'postgresql_cluster'],
    ['myGraphQLAPI', 'my_graphql_api'],
    ['IPv6Range', 'ipv6_range'],
    ['s3Bucket', 's3_bucket'],
    ['RangeSequence', 'range_sequence'],
    ['a-b', 'a_b'],
  ])('%s → %s', (input, expected) => {
    expect(snakeCase(input)).toBe(expected);
  });

  it('names types takoform_<snake kind> and prefixes reserved attribute names', () => {
    expect(defaultTypeName('SQLiteDatabase')).toBe('takoform_sqlite_database');
    expect(topLevelAttributeName('name')).toBe('spec_name');
    expect(topLevelAttributeName('count')).toBe('spec_count');
    expect(topLevelAttributeName('externalServices')).toBe('external_services');
  });

  it('prefixes every envelope name, the computed ones and the first release `conditions` included', () => {
    // Each of these is an attribute of every typed resource (`outputs` of one whose Form has an
    // output schema, and reserved for all since state version 2, so that a relock that finds
    // the Form's package does not rename an attribute): a property of the same name must not
    // collide with it.
    for (const [property, attribute] of [
      ['outputs', 'spec_outputs'],
      ['conditions', 'spec_conditions'],
      ['conditionsJson', 'spec_conditions_json'],
      ['pendingOperation', 'spec_pending_operation'],
      ['outputsJson', 'spec_outputs_json'],
      ['formRef', 'spec_form_ref'],
      ['timeouts', 'spec_timeouts'],
    ] as const) {
      expect(topLevelAttributeName(property)).toBe(attribute);
    }
  });
});
