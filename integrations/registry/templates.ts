// Strict Handlebars for manifests: credential files and credential checks are templates over the
// credential values. A variable the data lacks is an error, never an empty string.
import Handlebars from 'handlebars';

/** `{{json X}}` embeds a value as a JSON string literal, so a credential can never break a JSON file. */
const HELPERS: Record<string, Handlebars.HelperDelegate> = {
  json: (value: unknown) => JSON.stringify(value),
};
const BLOCK_HELPERS = new Set(['if', 'unless', 'with']);

const env = Handlebars.create();
for (const [name, fn] of Object.entries(HELPERS)) env.registerHelper(name, fn);

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

type Node = hbs.AST.Node & {
  path?: hbs.AST.PathExpression;
  params?: hbs.AST.Expression[];
  program?: hbs.AST.Program;
  inverse?: hbs.AST.Program;
};

function collect(node: Node | undefined, out: Set<string>, helpers: Set<string>): void {
  if (!node) return;
  if (node.type === 'Program') {
    for (const s of (node as hbs.AST.Program).body) collect(s as Node, out, helpers);
    return;
  }
  if (node.type === 'PathExpression') {
    const p = node as hbs.AST.PathExpression;
    if (p.original !== 'this') out.add(p.original);
    return;
  }
  if (node.type === 'MustacheStatement' || node.type === 'BlockStatement') {
    const head = node.path?.original ?? '';
    const hasParams = (node.params?.length ?? 0) > 0;
    if (head in HELPERS || BLOCK_HELPERS.has(head)) helpers.add(head);
    else if (hasParams) throw new TemplateError(`unknown helper "${head}" (allowed: json, if, unless, with)`);
    else if (node.path) collect(node.path, out, helpers);
    for (const p of node.params ?? []) collect(p as Node, out, helpers);
    collect(node.program, out, helpers);
    collect(node.inverse, out, helpers);
    return;
  }
  if (node.type === 'PartialStatement' || node.type === 'PartialBlockStatement')
    throw new TemplateError('partials are not allowed');
}

/** The variables a template reads; throws TemplateError when it does not parse or uses helpers we lack. */
export function templateVariables(template: string): string[] {
  let ast: hbs.AST.Program;
  try {
    ast = env.parse(template);
  } catch (err) {
    throw new TemplateError(`not a valid template: ${(err as Error).message.replace(/\s*\n\s*/g, ' ')}`);
  }
  const vars = new Set<string>();
  collect(ast as Node, vars, new Set());
  return [...vars].sort();
}

/** Renders strictly: a variable missing from `data` throws TemplateError naming it. */
export function renderTemplate(template: string, data: Record<string, string>): string {
  const missing = templateVariables(template).filter((v) => !(v in data));
  if (missing.length > 0) throw new TemplateError(`missing variable ${missing.join(', ')}`);
  try {
    return env.compile(template, {
      strict: true,
      noEscape: true,
      knownHelpersOnly: true,
      knownHelpers: { json: true },
    })(data);
  } catch (err) {
    throw new TemplateError((err as Error).message.split('\n')[0] ?? 'template failed');
  }
}
