// The document states that no text may hold U+0000, on open strings and record keys only.
import { describe, expect, it } from 'vitest';
import { TEXT_WITHOUT_NUL, withTextWithoutNul } from '../../../api/discovery/openapi-text.ts';

describe('withTextWithoutNul', () => {
  const doc = {
    openapi: '3.1.0',
    info: { title: 'x', description: { type: 'string' } },
    paths: {
      '/a/{id}': {
        post: {
          parameters: [{ in: 'path', name: 'id', schema: { type: 'string', maxLength: 10 } }],
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    note: { type: ['string', 'null'] },
                    kind: { type: 'string', enum: ['a', 'b'] },
                    email: { type: 'string', format: 'email' },
                    slug: { type: 'string', pattern: '^[a-z]+$' },
                    labels: { type: 'object', additionalProperties: { type: 'string' } },
                    closed: { type: 'object', properties: {}, additionalProperties: false },
                  },
                },
              },
            },
          },
        },
      },
    },
    components: { schemas: { Name: { type: 'string' } } },
  };
  const out = withTextWithoutNul(doc);
  const body = out.paths['/a/{id}'].post.requestBody.content['application/json'].schema;

  it('adds the pattern to strings that leave their text open, in paths and components', () => {
    expect(out.paths['/a/{id}'].post.parameters[0]?.schema).toMatchObject({ pattern: TEXT_WITHOUT_NUL });
    expect(body.properties.note).toMatchObject({ pattern: TEXT_WITHOUT_NUL });
    expect(out.components.schemas.Name).toMatchObject({ pattern: TEXT_WITHOUT_NUL });
  });

  it('leaves strings that an enum, format or pattern already narrows, and what is not a schema', () => {
    expect(body.properties.kind).not.toHaveProperty('pattern');
    expect(body.properties.email).not.toHaveProperty('pattern');
    expect(body.properties.slug.pattern).toBe('^[a-z]+$');
    expect(out.info.description).not.toHaveProperty('pattern');
  });

  it('gives record keys the same rule, not closed objects', () => {
    expect(body.properties.labels).toMatchObject({ propertyNames: { pattern: TEXT_WITHOUT_NUL } });
    expect(body.properties.closed).not.toHaveProperty('propertyNames');
  });

  it('does not change its input, and the pattern refuses exactly U+0000', () => {
    expect(doc.components.schemas.Name).not.toHaveProperty('pattern');
    const re = new RegExp(TEXT_WITHOUT_NUL, 'u');
    expect(re.test('any text, even \u0001 or \u{1F600}')).toBe(true);
    expect(re.test('a\u0000b')).toBe(false);
  });
});
