// Pure: names the database layer uses in PostgreSQL, derived so that they are always valid
// identifiers (at most 63 bytes, lowercase) and never collide between offices or agents.
import { createHash } from 'node:crypto';

const ident = (s: string) => s.replaceAll('-', '_');
const hash = (s: string, n: number) => createHash('sha256').update(s).digest('hex').slice(0, n);

/** One database per office. */
export const officeDatabase = (officeId: string) => {
  const name = `office_${ident(officeId)}`;
  return name.length <= 63 ? name : `office_${hash(officeId, 24)}`;
};

/** One schema per configured integration (instance) holding its tables. */
export const integrationSchema = (resourceName: string) => {
  const name = `integ_${ident(resourceName)}`;
  return name.length <= 63 ? name : `integ_${hash(resourceName, 24)}`;
};

/** One login role per enabled binding; role names are global to the server, hence the hash. */
export const agentRole = (namespace: string, bindingName: string) =>
  `colony_agent_${hash(`${namespace}/${bindingName}`, 20)}`;

export const databaseSecretName = (bindingName: string) => `${bindingName}-db`;
export const DATABASE_FINALIZER = 'colony.ai/database-role';

/** Double-quoted identifier; our names are plain already, quoting keeps them exact. */
export const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

export function grantStatements(
  role: string,
  db: string,
  schema: string,
  access: 'readwrite' | 'readonly',
): string[] {
  const dml = access === 'readwrite' ? 'SELECT, INSERT, UPDATE, DELETE' : 'SELECT';
  return [
    `GRANT CONNECT ON DATABASE ${q(db)} TO ${q(role)}`,
    `GRANT USAGE ON SCHEMA ${q(schema)} TO ${q(role)}`,
    `GRANT ${dml} ON ALL TABLES IN SCHEMA ${q(schema)} TO ${q(role)}`,
    ...(access === 'readwrite'
      ? [`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${q(schema)} TO ${q(role)}`]
      : []),
  ];
}
