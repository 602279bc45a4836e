{{/* Names, labels and small shared pieces of the Colony chart. */}}

{{- define "colony.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "colony.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "colony.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object; "component" is controller, api or test. */}}
{{- define "colony.labels" -}}
helm.sh/chart: {{ include "colony.chart" .root }}
{{ include "colony.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: colony
{{- end -}}

{{/* Selector labels: never change them between chart versions (Deployment selectors are immutable). */}}
{{- define "colony.selectorLabels" -}}
app.kubernetes.io/name: {{ include "colony.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The image by digest when one is given (what the node runs can then never change under a tag). */}}
{{- define "colony.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "colony.initImage" -}}
{{- $i := .Values.controller.initImage -}}
{{- if $i.digest -}}
{{- printf "%s@%s" $i.repository $i.digest -}}
{{- else -}}
{{- printf "%s:%s" $i.repository (default .Chart.AppVersion $i.tag) -}}
{{- end -}}
{{- end -}}

{{- define "colony.controllerServiceAccount" -}}
{{- if .Values.serviceAccounts.controller.create -}}
{{- default (printf "%s-controller" (include "colony.fullname" .)) .Values.serviceAccounts.controller.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccounts.controller.name -}}
{{- end -}}
{{- end -}}

{{- define "colony.apiServiceAccount" -}}
{{- if .Values.serviceAccounts.api.create -}}
{{- default (printf "%s-api" (include "colony.fullname" .)) .Values.serviceAccounts.api.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccounts.api.name -}}
{{- end -}}
{{- end -}}

{{- define "colony.leaseName" -}}
{{- default (printf "%s-controller" (include "colony.fullname" .)) .Values.controller.leaseName -}}
{{- end -}}

{{/* COLONY_CONTROLLER_LEASE: <namespace>/<name> of the controller's leader Lease. */}}
{{- define "colony.lease" -}}
{{- printf "%s/%s" .Release.Namespace (include "colony.leaseName" .) -}}
{{- end -}}

{{/* The Lease the API replicas elect their poller leader with (COLONY_POLLER_LEASE). */}}
{{- define "colony.pollerLeaseName" -}}
{{- printf "%s-api-pollers" (include "colony.fullname" .) -}}
{{- end -}}

{{- define "colony.secretName" -}}
{{- default (include "colony.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "colony.apiBaseUrl" -}}
{{- if .Values.api.baseUrl -}}
{{- .Values.api.baseUrl -}}
{{- else if and .Values.ingress.enabled .Values.ingress.hosts -}}
{{- $host := (first .Values.ingress.hosts).host -}}
{{- printf "%s://%s" (ternary "https" "http" (gt (len .Values.ingress.tls) 0)) $host -}}
{{- else -}}
{{- printf "http://%s-api.%s.svc" (include "colony.fullname" .) .Release.Namespace -}}
{{- end -}}
{{- end -}}

{{/* Either one ClusterRole for all namespaces, or a Role in the watched namespace. */}}
{{- define "colony.scopedRoleKind" -}}
{{- ternary "Role" "ClusterRole" (ne .Values.watchNamespace "") -}}
{{- end -}}

{{/* Environment shared by the controller and the API. */}}
{{- define "colony.commonEnv" -}}
- name: COLONY_IN_CLUSTER
  value: "true"
- name: COLONY_CONTROLLER_LEASE
  value: {{ include "colony.lease" . | quote }}
{{- with .Values.watchNamespace }}
- name: COLONY_WATCH_NAMESPACE
  value: {{ . | quote }}
{{- end }}
{{- if eq (include "colony.rbacScope" .) "offices" }}
- name: COLONY_RBAC_SCOPE
  value: offices
- name: COLONY_OFFICE_GRANTS
  value: {{ include "colony.officeGrants" . | quote }}
{{- end }}
{{- end -}}

{{/* Optional secretKeyRef env entry: name, key. */}}
{{- define "colony.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "colony.secretName" .root }}
      key: {{ .key }}
      optional: {{ .optional }}
{{- end -}}

{{/* The optional secret settings one component reads: root, component. */}}
{{- define "colony.optionalSecretEnv" -}}
{{- range (index .root.Values.secrets.optionalEnv .component) }}
{{ include "colony.secretEnv" (dict "root" $.root "name" . "key" . "optional" true) }}
{{- end }}
{{- end -}}

{{/* Egress every Colony pod needs: DNS, the Kubernetes API server, and the extra rules. */}}
{{- define "colony.egressBase" -}}
# DNS, wherever the cluster runs it.
- ports:
    - protocol: UDP
      port: 53
    - protocol: TCP
      port: 53
# The Kubernetes API server.
- ports:
    {{- range .Values.networkPolicy.apiServer.ports }}
    - protocol: TCP
      port: {{ . }}
    {{- end }}
  {{- with .Values.networkPolicy.apiServer.cidrs }}
  to:
    {{- range . }}
    - ipBlock:
        cidr: {{ . }}
    {{- end }}
  {{- end }}
{{- with .Values.networkPolicy.extraEgress }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
A third of a container memory limit in MiB ("768Mi" -> 256, "1Gi" -> 341), empty for other
notations: the V8 old-space cap (--max-old-space-size). Node's code, buffers and young generation
(2 x 16 MiB, --max-semi-space-size) take about 180 MiB beside it (docs/operator.md, "Controller
memory"). Without a cap Node may size its heap from the host's memory, collect lazily and pass the
limit with garbage.
*/}}
{{- define "colony.heapCapMiB" -}}
{{- $m := toString . -}}
{{- if regexMatch "^[0-9]+Mi$" $m -}}
{{- div (trimSuffix "Mi" $m | atoi) 3 -}}
{{- else if regexMatch "^[0-9]+Gi$" $m -}}
{{- div (mul (trimSuffix "Gi" $m | atoi) 1024) 3 -}}
{{- end -}}
{{- end -}}
