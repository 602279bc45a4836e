import { describe, expect, it } from 'vitest';
import {
  copyInSql,
  copyOutSql,
  type DumpedTable,
  databaseUrl,
  loadOrder,
  officeDatabaseName,
  schemaDifferences,
} from '../../../api/backups/render-database.ts';

const table = (
  schema: string,
  name: string,
  columns: [string, string][] = [['id', 'integer']],
): DumpedTable => ({
  schema,
  name,
  columns: columns.map(([n, type]) => ({ name: n, type })),
  rows: 0,
  bytes: 0,
  blob: `x/${name}`,
});

describe('officeDatabaseName', () => {
  it.each([
    ['acme', 'office_acme'],
    ['acme-prod-1', 'office_acme_prod_1'],
  ])('names the database of %s %s', (id, name) => expect(officeDatabaseName(id)).toBe(name));

  it('hashes ids that would pass 63 bytes, stably', () => {
    const long = 'a'.repeat(63);
    expect(officeDatabaseName(long)).toMatch(/^office_[0-9a-f]{24}$/);
    expect(officeDatabaseName(long)).toBe(officeDatabaseName(long));
  });
});

describe('databaseUrl', () => {
  it('points the admin URL at another database, keeping credentials and options', () => {
    expect(databaseUrl('postgres://u:p%40ss@db:5432/postgres?sslmode=require', 'office_x')).toBe(
      'postgres://u:p%40ss@db:5432/office_x?sslmode=require',
    );
  });
});

describe('copy statements', () => {
  it('quote every identifier, so odd names cannot break out', () => {
    const t = table('integ_a', 'we"ird', [['col"x', 'text']]);
    expect(copyOutSql(t)).toBe('COPY "integ_a"."we""ird" ("col""x") TO STDOUT');
    expect(copyInSql(t)).toBe('COPY "integ_a"."we""ird" ("col""x") FROM STDIN');
  });
});

describe('schemaDifferences', () => {
  const dumped = [
    table('s', 't', [
      ['id', 'integer'],
      ['name', 'text'],
    ]),
  ];

  it('finds nothing when names and types match in any order', () => {
    const live = new Map([
      [
        's.t',
        [
          { name: 'name', type: 'text' },
          { name: 'id', type: 'integer' },
        ],
      ],
    ]);
    expect(schemaDifferences(dumped, live)).toEqual([]);
  });

  it('names dropped tables, dropped, retyped and new columns', () => {
    expect(schemaDifferences(dumped, new Map())).toEqual(['table s.t no longer exists']);
    const live = new Map([
      [
        's.t',
        [
          { name: 'id', type: 'bigint' },
          { name: 'extra', type: 'jsonb' },
        ],
      ],
    ]);
    expect(schemaDifferences(dumped, live)).toEqual([
      's.t.id is now bigint, was integer',
      's.t.name no longer exists',
      's.t.extra is new (jsonb)',
    ]);
  });
});

describe('loadOrder', () => {
  const q = (n: string) => `"s"."${n}"`;
  it('fills referenced tables first, keeping dump order otherwise', () => {
    const tables = ['a_child', 'b_free', 'c_parent'].map((n) => table('s', n));
    const order = loadOrder(tables, [{ child: q('a_child'), parent: q('c_parent') }]);
    expect(order.map((t) => t.name)).toEqual(['c_parent', 'a_child', 'b_free']);
  });

  it('survives self-references, cycles and keys to tables outside the dump', () => {
    const tables = ['x', 'y'].map((n) => table('s', n));
    const edges = [
      { child: q('x'), parent: q('x') },
      { child: q('x'), parent: q('y') },
      { child: q('y'), parent: q('x') },
      { child: q('y'), parent: q('elsewhere') },
    ];
    expect(
      loadOrder(tables, edges)
        .map((t) => t.name)
        .sort(),
    ).toEqual(['x', 'y']);
  });
});
