// Pure over the caches: whether one binding can be injected into its agent, and what it brings.
import type { V1Deployment } from '@kubernetes/client-node';
import { filesSecretName } from '../../cluster/credential-files.ts';
import { ANNOTATION_ROLES } from '../../cluster/labels.ts';
import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';
import { bindingOrder } from '../../integrations/registry/agent-surface.ts';
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import {
  agentConfigValues,
  memberViolations,
  parseRoles,
} from '../../integrations/registry/members-rules.ts';
import type { Injection } from '../render/agent-env.ts';
import type { EnabledLayers } from '../render/agent-layers.ts';
import { officeServiceName, officeServiceUrl } from '../render/office-service.ts';
import type { AgentDeps } from './agent-deps.ts';
import { agentWorkload, bindingsOfSecret, integrationForSecret } from './cluster-view.ts';
import { resultOf } from './credential-check.ts';

export type Outcome =
  | {
      ok: true;
      injection: Injection;
      /** Injections from other Secrets, such as the database layer's credentials. */
      extra?: Injection[];
      layers: EnabledLayers;
      manifest: IntegrationManifest;
      integration: IntegrationObject;
      /** The per-office service's Deployment, when the integration has one and it exists. */
      service?: V1Deployment | undefined;
      /** Why the credentials are injected unverified (the provider could not be asked). */
      unverified?: string;
    }
  | { ok: false; reason: string; message: string }
  | { ok: 'disabled' };

const refuse = (reason: string, message: string): Outcome => ({ ok: false, reason, message });

/** The members layer: roles from the workload, earlier bindings counting first for maxAgents. */
function membersProblem(
  deps: AgentDeps,
  ns: string,
  b: AgentBindingObject,
  m: IntegrationManifest,
): Outcome | undefined {
  const workload = agentWorkload(deps.view, ns, b.spec.agentName);
  const roles = workload ? parseRoles(workload.obj.metadata?.annotations?.[ANNOTATION_ROLES]) : undefined;
  const earlier = bindingsOfSecret(deps.view, ns, b.spec.secretName)
    .filter((o) => o.spec.enabled && !o.metadata?.deletionTimestamp && o.spec.agentName !== b.spec.agentName)
    .filter((o) => bindingOrder(o) < bindingOrder(b))
    .map((o) => o.spec.agentName)
    .sort();
  const violations = memberViolations(m, {
    agentName: b.spec.agentName,
    roles,
    config: b.spec.config ?? {},
    othersEnabled: earlier,
  });
  const v = violations[0];
  return v ? refuse('MembersRuleViolated', `${v.rule}: ${v.message}`) : undefined;
}

/** Layers rendered by the Integration's reconciler must be in place before the agent gets them. */
function layersProblem(
  deps: AgentDeps,
  ns: string,
  i: IntegrationObject,
  m: IntegrationManifest,
  secretVersion: string,
): Outcome | undefined {
  if (m.credentialCheck && deps.credentialChecks) {
    const check = i.status?.credentialCheck;
    if (!check || check.secretVersion !== secretVersion)
      return refuse('CredentialCheckPending', 'the credentials have not been checked yet');
    // Only the provider's refusal blocks; an unverified check injects (see credentialUnverified).
    if (resultOf(check) === 'Refused') return refuse('CredentialCheckFailed', check.message);
  }
  if (m.credentialFiles?.length && !deps.view.secrets.get(`${ns}/${filesSecretName(i.spec.secretName)}`)) {
    const why = i.status?.conditions?.find((c) => c.reason === 'TemplateError')?.message;
    return refuse('CredentialFilesNotRendered', why ?? 'the credential files are not rendered yet');
  }
  return undefined;
}

/** Why the credentials go in unverified: the check could not reach the provider. */
function credentialUnverified(deps: AgentDeps, i: IntegrationObject, m: IntegrationManifest) {
  const check = i.status?.credentialCheck;
  if (!m.credentialCheck || !deps.credentialChecks || !check || resultOf(check) !== 'Unverified') return {};
  return { unverified: `the credentials are not verified: ${check.message}` };
}

/** The objects a binding needs, or the reason one is missing. */
function lookUp(deps: AgentDeps, ns: string, b: AgentBindingObject) {
  const manifest = deps.registry.get(b.spec.integrationId);
  if (!manifest)
    return refuse('UnknownIntegration', `no integration ${b.spec.integrationId} in the registry`);
  const integration = integrationForSecret(deps.view, ns, b.spec.secretName);
  if (!integration)
    return refuse('IntegrationNotConfigured', `no Integration uses Secret ${b.spec.secretName}`);
  const secret = deps.view.secrets.get(`${ns}/${b.spec.secretName}`);
  if (!secret) return refuse('SecretNotFound', `Secret ${b.spec.secretName} does not exist`);
  const missing = manifest.agentEnvVars.filter((k) => !secret.data?.[k]);
  if (missing.length > 0)
    return refuse('SecretKeyMissing', `Secret ${b.spec.secretName} lacks ${missing.join(', ')}`);
  return { manifest, integration, secretVersion: secret.metadata?.resourceVersion ?? '' };
}

export function evaluate(deps: AgentDeps, ns: string, b: AgentBindingObject): Outcome {
  if (!b.spec.enabled || b.metadata?.deletionTimestamp) return { ok: 'disabled' };
  const found = lookUp(deps, ns, b);
  if ('ok' in found) return found;
  const { manifest, integration, secretVersion } = found;
  const problem =
    membersProblem(deps, ns, b, manifest) ?? layersProblem(deps, ns, integration, manifest, secretVersion);
  if (problem) return problem;
  const url = officeServiceUrl({
    manifest,
    officeId: integration.spec.officeId,
    namespace: ns,
    secretName: b.spec.secretName,
    instanceLabel: integration.spec.instanceLabel,
  });
  const urlEnv = manifest.colonyContainer?.urlEnv;
  const values = {
    ...agentConfigValues(manifest, b.spec.config),
    ...(url && urlEnv ? { [urlEnv]: url } : {}),
  };
  const resourceName = integration.metadata?.name ?? manifest.id;
  const files = deps.view.secrets.get(`${ns}/${filesSecretName(b.spec.secretName)}`);
  const service = manifest.colonyContainer
    ? deps.view.serviceDeployments.get(
        `${ns}/${officeServiceName(manifest.id, integration.spec.instanceLabel)}`,
      )
    : undefined;
  return {
    ok: true,
    manifest,
    integration,
    service,
    ...credentialUnverified(deps, integration, manifest),
    injection: {
      integrationId: resourceName,
      secretName: b.spec.secretName,
      secretVersion,
      envVars: manifest.agentEnvVars,
      ...(Object.keys(values).length > 0 ? { values } : {}),
    },
    layers: {
      manifest,
      resourceName,
      filesSecret: files
        ? { name: files.metadata?.name ?? '', version: files.metadata?.resourceVersion ?? '' }
        : undefined,
    },
  };
}
