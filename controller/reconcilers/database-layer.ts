// The database layer against a real PostgreSQL server: one database per office, the integration's
// migrations applied once into its own schema, and a login role per enabled agent with grants on
// those tables only. Disabling (or deleting) the binding drops the role and its credentials.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import pg from 'pg';
import type { Applier } from '../../cluster/apply.ts';
import { API_VERSION } from '../../cluster/crds/crds.ts';
import {
  agentRole,
  DATABASE_FINALIZER,
  databaseSecretName,
  grantStatements,
  integrationSchema,
  officeDatabase,
  q,
} from '../../cluster/database-names.ts';
import { LABEL_GENERATED, LABEL_MANAGED_BY, LABEL_OFFICE, MANAGED_BY } from '../../cluster/labels.ts';
import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import { databaseUrlEnv, type IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import type { Injection } from '../render/agent-env.ts';
import type { ClusterView } from './cluster-view.ts';

export interface DatabaseLayer {
  grant(ns: string, b: AgentBindingObject, i: IntegrationObject, m: IntegrationManifest): Promise<Injection>;
  revoke(ns: string, b: AgentBindingObject): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseLayerOptions {
  adminUrl: string;
  /** host:port agents connect to, when it differs from the admin URL's. */
  agentHost?: string | undefined;
  registry: IntegrationRegistry;
  view: ClusterView;
  applier: Applier;
  kc: KubeConfig;
}

const DUPLICATE_DATABASE = '42P04';

export function postgresDatabaseLayer(opts: DatabaseLayerOptions): DatabaseLayer {
  const admin = new pg.Pool({ connectionString: opts.adminUrl, max: 2 });
  admin.on('error', () => {});
  const pools = new Map<string, pg.Pool>();
  const ready = new Set<string>();
  const core = opts.kc.makeApiClient(CoreV1Api);
  const base = new URL(opts.adminUrl);

  const poolFor = (db: string) => {
    let p = pools.get(db);
    if (!p) {
      const url = new URL(opts.adminUrl);
      url.pathname = `/${db}`;
      p = new pg.Pool({ connectionString: url.toString(), max: 2 });
      p.on('error', () => {});
      pools.set(db, p);
    }
    return p;
  };

  async function ensureDatabase(db: string): Promise<void> {
    if (ready.has(`db:${db}`)) return;
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${q(db)}`).catch((err: { code?: string }) => {
        if (err.code !== DUPLICATE_DATABASE) throw err;
      });
    }
    // Only roles granted CONNECT reach an office's database; nobody creates objects in public.
    await admin.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${q(db)} FROM PUBLIC`);
    await poolFor(db).query('REVOKE ALL ON SCHEMA public FROM PUBLIC');
    await poolFor(db).query(
      'CREATE TABLE IF NOT EXISTS public.colony_migrations (schema_name TEXT NOT NULL, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (schema_name, name))',
    );
    ready.add(`db:${db}`);
  }

  /** Applies each migration once, in order, under a lock; a file changed after it ran is an error. */
  async function migrate(db: string, schema: string, id: string): Promise<void> {
    const migrations = opts.registry.migrations(id);
    const key = `mig:${db}/${schema}:${migrations.map((m) => m.checksum).join(',')}`;
    if (ready.has(key)) return;
    const client = await poolFor(db).connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${db}/${schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${q(schema)}`);
      const done = await client.query(
        'SELECT name, checksum FROM public.colony_migrations WHERE schema_name = $1',
        [schema],
      );
      const applied = new Map(done.rows.map((r: { name: string; checksum: string }) => [r.name, r.checksum]));
      for (const m of migrations) {
        const prior = applied.get(m.name);
        if (prior === m.checksum) continue;
        if (prior) throw new Error(`migration ${m.name} of ${id} changed after it was applied`);
        await client.query(`SET LOCAL search_path TO ${q(schema)}`);
        await client.query(m.sql);
        await client.query(
          'INSERT INTO public.colony_migrations (schema_name, name, checksum) VALUES ($1, $2, $3)',
          [schema, m.name, m.checksum],
        );
      }
      await client.query('COMMIT');
      ready.add(key);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async function ensureRole(role: string, password: string, fresh: boolean): Promise<void> {
    const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    const literal = (await admin.query('SELECT quote_literal($1) AS l', [password])).rows[0].l as string;
    if (exists.rowCount === 0)
      await admin.query(`CREATE ROLE ${q(role)} LOGIN NOINHERIT PASSWORD ${literal}`);
    else if (fresh) await admin.query(`ALTER ROLE ${q(role)} PASSWORD ${literal}`);
  }

  const officeOf = (b: AgentBindingObject) => b.metadata?.labels?.[LABEL_OFFICE] ?? '';

  /** The connection URL stored for a binding, if its credentials Secret exists. */
  const storedUrl = (ns: string, secretName: string, urlEnv: string) => {
    const value = opts.view.secrets.get(`${ns}/${secretName}`)?.data?.[urlEnv];
    return value ? new URL(Buffer.from(value, 'base64').toString()) : undefined;
  };

  const setFinalizer = (ns: string, name: string, on: boolean) =>
    opts.applier.apply({
      apiVersion: API_VERSION,
      kind: 'AgentBinding',
      metadata: { name, namespace: ns, finalizers: on ? [DATABASE_FINALIZER] : [] },
    });

  async function writeCredentials(
    ns: string,
    b: AgentBindingObject,
    secretName: string,
    urlEnv: string,
    url: string,
  ) {
    const name = b.metadata?.name ?? '';
    await opts.applier.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: secretName,
        namespace: ns,
        labels: { [LABEL_OFFICE]: officeOf(b), [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_GENERATED]: 'true' },
        ownerReferences: [
          { apiVersion: API_VERSION, kind: 'AgentBinding', name, uid: b.metadata?.uid ?? '' },
        ],
      },
      data: { [urlEnv]: Buffer.from(url).toString('base64') },
    });
  }

  async function dropRole(role: string, db: string): Promise<void> {
    const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    if (!exists.rowCount) return;
    // Open sessions end now: revoking must take effect for an agent that is already connected.
    // Terminating another role's sessions needs membership in it; a CREATEROLE admin may grant itself that.
    await admin
      .query(`GRANT ${q(role)} TO CURRENT_USER`)
      .then(() =>
        admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]),
      )
      .catch(() => undefined);
    const inDb = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
    if (inDb.rowCount) await poolFor(db).query(`DROP OWNED BY ${q(role)}`);
    await admin.query(`DROP ROLE IF EXISTS ${q(role)}`);
  }

  /** The role, its grants, the finalizer that guarantees its revocation, and its credentials. */
  async function provision(a: {
    ns: string;
    b: AgentBindingObject;
    role: string;
    db: string;
    schema: string;
    access: 'readwrite' | 'readonly';
    secretName: string;
    urlEnv: string;
    stored: URL | undefined;
  }): Promise<void> {
    const password = a.stored ? decodeURIComponent(a.stored.password) : randomBytes(24).toString('base64url');
    await ensureRole(a.role, password, !a.stored);
    for (const s of grantStatements(a.role, a.db, a.schema, a.access)) await poolFor(a.db).query(s);
    const name = a.b.metadata?.name ?? '';
    if (!a.b.metadata?.finalizers?.includes(DATABASE_FINALIZER)) await setFinalizer(a.ns, name, true);
    if (a.stored) return;
    const host = opts.agentHost ?? base.host;
    const options = encodeURIComponent(`-c search_path=${a.schema}`);
    const url = `postgres://${a.role}:${encodeURIComponent(password)}@${host}/${a.db}?options=${options}`;
    await writeCredentials(a.ns, a.b, a.secretName, a.urlEnv, url);
  }

  return {
    async grant(ns, b, i, m) {
      const name = b.metadata?.name ?? '';
      const db = officeDatabase(i.spec.officeId);
      const schema = integrationSchema(i.metadata?.name ?? m.id);
      const role = agentRole(ns, name);
      const urlEnv = databaseUrlEnv(m);
      const secretName = databaseSecretName(name);
      const stored = storedUrl(ns, secretName, urlEnv);
      const access = m.database?.access ?? 'readwrite';
      const key = `grant:${role}:${schema}:${access}:${opts.registry
        .migrations(m.id)
        .map((x) => x.checksum)
        .join(',')}`;
      await ensureDatabase(db);
      await migrate(db, schema, m.id);
      if (!ready.has(key) || !stored) {
        await provision({ ns, b, role, db, schema, access, secretName, urlEnv, stored });
        ready.add(key);
      }
      const secret = opts.view.secrets.get(`${ns}/${secretName}`);
      return {
        integrationId: `${i.metadata?.name}-database`,
        secretName,
        secretVersion: secret?.metadata?.resourceVersion ?? 'new',
        envVars: [urlEnv],
      };
    },

    async revoke(ns, b) {
      const name = b.metadata?.name ?? '';
      const secretName = databaseSecretName(name);
      const hasSecret = !!opts.view.secrets.get(`${ns}/${secretName}`);
      const hasFinalizer = b.metadata?.finalizers?.includes(DATABASE_FINALIZER) ?? false;
      if (!hasSecret && !hasFinalizer) return;
      const role = agentRole(ns, name);
      await dropRole(role, officeDatabase(officeOf(b)));
      for (const k of [...ready]) if (k.startsWith(`grant:${role}:`)) ready.delete(k);
      if (hasSecret) {
        await core
          .deleteNamespacedSecret({ name: secretName, namespace: ns })
          .catch((err: { code?: number }) => {
            if (err.code !== 404) throw err;
          });
      }
      // Releasing our finalizer entry lets a deleted binding go; a disabled one simply keeps none.
      if (hasFinalizer) await setFinalizer(ns, name, false);
    },

    async close() {
      await Promise.all([admin.end(), ...[...pools.values()].map((p) => p.end())]);
    },
  };
}
