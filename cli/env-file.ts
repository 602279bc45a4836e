// Pure: reads a KEY=value env file for `colony integrations secret set`. Problems name the line and
// the key, never a value.

export interface EnvFile {
  data: Record<string, string>;
  problems: string[];
}

const unquote = (v: string) => {
  const q = v[0];
  return (q === '"' || q === "'") && v.endsWith(q) && v.length >= 2 ? v.slice(1, -1) : v;
};

export function parseEnvFile(text: string): EnvFile {
  const data: Record<string, string> = {};
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim().replace(/^export\s+/, '');
    if (!line || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    const key = eq === -1 ? line : line.slice(0, eq).trim();
    if (eq === -1 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      problems.push(
        `line ${i + 1}: expected KEY=value${eq === -1 ? '' : ` (${key || 'empty key'} is not a name)`}`,
      );
      return;
    }
    if (Object.hasOwn(data, key)) problems.push(`line ${i + 1}: ${key} is set twice`);
    data[key] = unquote(line.slice(eq + 1).trim());
  });
  if (problems.length === 0 && Object.keys(data).length === 0) problems.push('no KEY=value lines');
  return { data, problems };
}
