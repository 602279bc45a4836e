{{/*
RBAC shared by the three scopes: cluster-wide (ClusterRole + ClusterRoleBinding), one watched
namespace (watchNamespace: Role + RoleBinding) and offices (rbac.scope=offices: a ClusterRole bound by
one RoleBinding per office, which the API makes when it creates the office).
*/}}

{{- define "colony.rbacScope" -}}
{{- if and (eq .Values.rbac.scope "offices") .Values.watchNamespace -}}
{{- fail "rbac.scope=offices watches every office namespace: leave watchNamespace unset" -}}
{{- end -}}
{{- .Values.rbac.scope -}}
{{- end -}}

{{/* The ClusterRoles an office's RoleBindings refer to (offices mode); bindings share their names. */}}
{{- define "colony.officeApiRole" -}}
{{- include "colony.fullname" . }}-office-api
{{- end -}}
{{- define "colony.officeControllerRole" -}}
{{- include "colony.fullname" . }}-office-controller
{{- end -}}

{{/* COLONY_OFFICE_GRANTS: what the API binds in each office, `<clusterRole>=<namespace>/<serviceAccount>`. */}}
{{- define "colony.officeGrants" -}}
{{ include "colony.officeApiRole" . }}={{ .Release.Namespace }}/{{ include "colony.apiServiceAccount" . }},{{ include "colony.officeControllerRole" . }}={{ .Release.Namespace }}/{{ include "colony.controllerServiceAccount" . }}
{{- end -}}

{{/*
What the office-manager API does inside an office (api/office/office-cluster.ts): server-side applies
Secrets, Integrations and AgentBindings, lists the two kinds and deletes an Integration and its
Secret; the OAuth refresher reads a connected integration's Secret by name. The backups API
(api/backups) reads the Secrets integrations reference (by name, never a list) into one Secret per
snapshot, creates VolumeSnapshots and PVCs restored from them.
*/}}
{{- define "colony.apiOfficeRules" -}}
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, create, patch, delete]
# An agent's roles (the members layer's requiredRoles) are its workload's annotation: read when enabling.
- apiGroups: [apps]
  resources: [deployments, statefulsets]
  verbs: [list]
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [get, list, create]
- apiGroups: [snapshot.storage.k8s.io]
  resources: [volumesnapshots]
  verbs: [get, list, create, patch, delete]
# The office's usage ledger the controller's meter keeps: read for /me, /account and usage reports.
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: [colony-usage]
  verbs: [get]
- apiGroups: [colony.ai]
  resources: [integrations]
  verbs: [list, create, patch, delete]
- apiGroups: [colony.ai]
  resources: [agentbindings]
  verbs: [list, create, patch]
{{- end -}}

{{/*
What the controller does inside an office (controller/colony-controller.ts, reconcilers/, runtime/):
informers list and watch the two kinds, their Secrets and the agent workloads; server-side apply
patches agent workloads and creates/patches per-office service Deployments, Services and PVCs;
teardown deletes the Deployment and Service; status goes through the status subresources; Events
are events.k8s.io; the usage meter keeps one ConfigMap, colony-usage, per office.
*/}}
{{- define "colony.controllerOfficeRules" -}}
- apiGroups: [colony.ai]
  resources: [integrations, agentbindings]
  verbs: [list, watch]
- apiGroups: [colony.ai]
  resources: [integrations/status, agentbindings/status]
  verbs: [patch]
# The database layer's finalizer on a binding (server-side apply of metadata.finalizers only).
- apiGroups: [colony.ai]
  resources: [agentbindings]
  verbs: [patch]
# Secrets it renders: credential files, per-binding database credentials (deleted on revoke).
- apiGroups: [""]
  resources: [secrets]
  verbs: [list, watch, create, patch, delete]
# Agent pods, to report a failed colony-init install on the binding.
- apiGroups: [""]
  resources: [pods]
  verbs: [list, watch]
# The merged integration config (MCP servers, plugins, SDK extensions) per agent.
- apiGroups: [""]
  resources: [configmaps]
  verbs: [create, patch]
# The usage ledger (controller/metering): read, then replaced under its resourceVersion.
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: [colony-usage]
  verbs: [get, update]
- apiGroups: [apps]
  resources: [deployments]
  verbs: [list, watch, create, patch, delete]
- apiGroups: [apps]
  resources: [statefulsets]
  verbs: [list, watch, patch]
- apiGroups: [""]
  resources: [services]
  verbs: [list, watch, create, patch, delete]
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [create, patch]
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [create, patch]
{{- end -}}
