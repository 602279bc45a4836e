// loadConfig: defaults, derived values and errors that name the variable.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../api/config.ts';

describe('loadConfig', () => {
  it('runs on embedded defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      baseUrl: 'http://localhost:8080',
      environment: 'production',
      database: { kind: 'sqlite', file: './data/colony.db' },
      rateLimit: { apiPerWindow: 300, windowSeconds: 60, store: 'memory' },
      trustProxy: false,
    });
  });

  it('allows browsers from the base URL origin, plus COLONY_ALLOWED_ORIGINS normalised', () => {
    expect(loadConfig({}).allowedOrigins).toEqual(['http://localhost:8080']);
    const c = loadConfig({
      COLONY_BASE_URL: 'https://api.example.com/v1/',
      COLONY_ALLOWED_ORIGINS: ' https://App.Example:443 , http://localhost:3000/, https://api.example.com',
    });
    expect(c.allowedOrigins).toEqual([
      'https://api.example.com',
      'https://app.example',
      'http://localhost:3000',
    ]);
    expect(loadConfig({ COLONY_ALLOWED_ORIGINS: '*' }).allowedOrigins).toEqual([
      'http://localhost:8080',
      '*',
    ]);
  });

  it.each([
    'https://app.example/path',
    'ftp://app.example',
    'app.example',
    'https://u:p@app.example',
    'null',
  ])('refuses %s in COLONY_ALLOWED_ORIGINS, naming the entry', (entry) => {
    expect(() => loadConfig({ COLONY_ALLOWED_ORIGINS: entry })).toThrow(
      `COLONY_ALLOWED_ORIGINS: "${entry}" is not an origin`,
    );
  });

  it('uses PostgreSQL when DATABASE_URL is set and trims the base URL', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://u:p@db:5432/colony',
      COLONY_BASE_URL: 'https://api.example.com/',
    });
    expect(c.database).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@db:5432/colony',
      maxConnections: 10,
      preparedStatements: true,
    });
    expect(c.baseUrl).toBe('https://api.example.com');
  });

  it('turns PostgreSQL prepared statements off for a pooler that cannot track them', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://u:p@db:5432/colony',
      COLONY_DATABASE_PREPARED_STATEMENTS: 'false',
    });
    expect(c.database).toMatchObject({ kind: 'postgres', preparedStatements: false });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ COLONY_ENVIRONMENT: 'staging' }, 'COLONY_ENVIRONMENT'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ COLONY_BOOTSTRAP_TOKEN: 'short' }, 'COLONY_BOOTSTRAP_TOKEN'],
    [{ COLONY_RATE_LIMIT_STORE: 'redis' }, 'REDIS_URL'],
    [{ COLONY_RATE_LIMIT_STORE: 'postgres' }, 'DATABASE_URL'],
    [{ COLONY_CONTROLLER_LEASE: 'no-slash' }, 'COLONY_CONTROLLER_LEASE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ COLONY_ANSWER_MODEL_URL: 'http://llm:8000/v1' }, 'COLONY_ANSWER_MODEL'],
    [{ COLONY_ANSWER_MODEL_URL: 'ftp://llm/v1', COLONY_ANSWER_MODEL: 'm' }, 'COLONY_ANSWER_MODEL_URL'],
    [{ COLONY_ANSWER_MODEL_TIMEOUT_MS: '0' }, 'COLONY_ANSWER_MODEL_TIMEOUT_MS'],
    [{ COLONY_IMAGE_OVERRIDES: '{not json' }, 'COLONY_IMAGE_OVERRIDES'],
    [{ COLONY_IMAGE_OVERRIDES: '["tailscale/tailscale:stable"]' }, 'COLONY_IMAGE_OVERRIDES'],
    [{ COLONY_IMAGE_OVERRIDES: '{"tailscale/tailscale:stable": 1}' }, 'COLONY_IMAGE_OVERRIDES'],
    [{ COLONY_IMAGE_OVERRIDES: '{"tailscale/tailscale:stable": ""}' }, 'COLONY_IMAGE_OVERRIDES'],
    [{ COLONY_IMAGE_OVERRIDES: 'null' }, 'COLONY_IMAGE_OVERRIDES'],
    [{ COLONY_INIT_SECURITY_CONTEXT: '{runAsUser: 1}' }, 'COLONY_INIT_SECURITY_CONTEXT'],
    [{ COLONY_INIT_SECURITY_CONTEXT: '{"runAsUsr": 1000}' }, 'COLONY_INIT_SECURITY_CONTEXT'],
    [{ COLONY_SERVICE_SECURITY_CONTEXT: '{"runAsUser": -1}' }, 'COLONY_SERVICE_SECURITY_CONTEXT'],
    [{ COLONY_SERVICE_POD_SECURITY_CONTEXT: '{"capabilities": {}}' }, 'COLONY_SERVICE_POD_SECURITY_CONTEXT'],
    [{ COLONY_RBAC_SCOPE: 'namespace' }, 'COLONY_RBAC_SCOPE'],
    [{ COLONY_RBAC_SCOPE: 'offices' }, 'COLONY_OFFICE_GRANTS'],
    [{ COLONY_OFFICE_GRANTS: 'colony-office-api' }, 'COLONY_OFFICE_GRANTS'],
    [{ COLONY_OFFICE_GRANTS: 'colony-office-api=colony-api' }, 'COLONY_OFFICE_GRANTS'],
    [
      {
        COLONY_RBAC_SCOPE: 'offices',
        COLONY_OFFICE_GRANTS: 'r=colony-system/api',
        COLONY_WATCH_NAMESPACE: 'office-a',
      },
      'COLONY_WATCH_NAMESPACE',
    ],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^invalid configuration:\\n  ${variable}:`));
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).database.kind).toBe('sqlite');
  });

  it('turns a hop count into a trust function', () => {
    const trust = loadConfig({ COLONY_TRUST_PROXY: '1' }).trustProxy;
    expect(typeof trust).toBe('function');
    if (typeof trust === 'function') {
      expect(trust('10.0.0.1', 0)).toBe(true);
      expect(trust('10.0.0.2', 1)).toBe(false);
    }
  });

  it('configures the answer model only with a URL and a model, trimming the URL', () => {
    expect(loadConfig({}).answerModel).toBeUndefined();
    expect(loadConfig({ COLONY_ANSWER_MODEL: 'llama3' }).answerModel).toBeUndefined();
    expect(
      loadConfig({
        COLONY_ANSWER_MODEL_URL: 'http://llm:8000/v1/',
        COLONY_ANSWER_MODEL: 'llama3',
        COLONY_ANSWER_MODEL_API_KEY: 'sk-x',
      }).answerModel,
    ).toEqual({ url: 'http://llm:8000/v1', model: 'llama3', apiKey: 'sk-x', timeoutMs: 20_000 });
  });

  it('reads securityContexts for what Colony adds to pods, unset by default (restricted)', () => {
    expect(loadConfig({}).kubernetes.podSecurity).toEqual({});
    const c = loadConfig({
      COLONY_INIT_SECURITY_CONTEXT: '{"runAsUser": 1000, "runAsNonRoot": true}',
      COLONY_SERVICE_POD_SECURITY_CONTEXT: '{"fsGroup": 2000}',
    });
    expect(c.kubernetes.podSecurity.initContainer).toEqual({ runAsUser: 1000, runAsNonRoot: true });
    expect(c.kubernetes.podSecurity.servicePod).toEqual({ fsGroup: 2000 });
    expect(c.kubernetes.initImage).toMatch(/^colony-init:\d+\.\d+\.\d+/);
  });

  it('reads image overrides as a map, empty when unset', () => {
    expect(loadConfig({}).kubernetes.imageOverrides).toEqual({});
    expect(
      loadConfig({ COLONY_IMAGE_OVERRIDES: '{"tailscale/tailscale:stable": "mirror.example/ts:1.80"}' })
        .kubernetes.imageOverrides,
    ).toEqual({ 'tailscale/tailscale:stable': 'mirror.example/ts:1.80' });
  });

  it('reads the RBAC scope and the office grants, cluster-wide and none by default', () => {
    expect(loadConfig({}).kubernetes).toMatchObject({ rbacScope: 'cluster', officeGrants: [] });
    expect(
      loadConfig({
        COLONY_RBAC_SCOPE: 'offices',
        COLONY_OFFICE_GRANTS:
          'colony-office-api=colony-system/colony-api, colony-office-controller=colony-system/colony-controller',
      }).kubernetes,
    ).toMatchObject({
      rbacScope: 'offices',
      officeGrants: [
        {
          clusterRole: 'colony-office-api',
          serviceAccount: { namespace: 'colony-system', name: 'colony-api' },
        },
        {
          clusterRole: 'colony-office-controller',
          serviceAccount: { namespace: 'colony-system', name: 'colony-controller' },
        },
      ],
    });
  });
});
