{{/*
The operator is one per cluster: its cluster-scoped objects (ClusterRole, MutatingWebhookConfiguration) and the
names it looks up at run time (streamsmemory.webhook.configuration-name, secret-name, service-name in
application.properties) are fixed, so every object is named after the chart, not the release.
*/}}
{{- define "smo.name" -}}streams-memory-operator{{- end -}}

{{/* Labels on every object. make manifests keeps only app.kubernetes.io/name in deploy/. */}}
{{- define "smo.labels" -}}
app.kubernetes.io/name: {{ include "smo.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The pods' selector: the name only, as deploy/ has it (a selector cannot change in an upgrade). */}}
{{- define "smo.selectorLabels" -}}
app.kubernetes.io/name: {{ include "smo.name" . }}
{{- end -}}

{{- define "smo.operatorImage" -}}
{{ .Values.operator.image.repository }}:{{ .Values.operator.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "smo.agentImage" -}}
{{ .Values.webhook.agent.image.repository }}:{{ .Values.webhook.agent.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "smo.webhookService" -}}{{ include "smo.name" . }}-webhook{{- end -}}
{{- define "smo.tlsSecret" -}}{{ include "smo.name" . }}-webhook-tls{{- end -}}
{{- define "smo.certManagerSecret" -}}{{ include "smo.name" . }}-webhook-cert{{- end -}}

{{/*
"true" unless the API server is known not to serve ValidatingAdmissionPolicy (the write policy's kind). Installed or
upgraded against a cluster, helm's capabilities list every group/version/kind the API server serves; rendered
offline (helm template, make manifests) they list only group/versions, so nothing can be told and the policy renders.
*/}}
{{- define "smo.writePolicyServed" -}}
{{- $apis := .Capabilities.APIVersions -}}
{{- if or (not ($apis.Has "v1/Pod")) ($apis.Has "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy") -}}true{{- end -}}
{{- end -}}
