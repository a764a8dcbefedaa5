{{/* Names ---------------------------------------------------------------------------------------- */}}

{{- define "backstage-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* <release>-<chart>, or <release> alone when it already contains the chart name; 63 chars (DNS label). */}}
{{- define "backstage-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The full name plus a suffix, still a valid DNS label (Service names must be). */}}
{{- define "backstage-operator.suffixedName" -}}
{{- $root := index . 0 }}
{{- $suffix := index . 1 }}
{{- $max := sub 62 (len $suffix) | int }}
{{- printf "%s-%s" (include "backstage-operator.fullname" $root | trunc $max | trimSuffix "-") $suffix }}
{{- end }}

{{- define "backstage-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels ------------------------------------------------------------------------------------------ */}}

{{- define "backstage-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "backstage-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "backstage-operator.labels" -}}
helm.sh/chart: {{ include "backstage-operator.chart" . }}
{{ include "backstage-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: backstage
{{- end }}

{{/* Operator pod ------------------------------------------------------------------------------------ */}}

{{- define "backstage-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "backstage-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "backstage-operator.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{- define "backstage-operator.leaseName" -}}
{{- .Values.leaderElection.leaseName | default (include "backstage-operator.suffixedName" (list . "leader")) }}
{{- end }}

{{/* Webhook ----------------------------------------------------------------------------------------- */}}

{{- define "backstage-operator.webhookServiceName" -}}
{{- include "backstage-operator.suffixedName" (list . "webhook") }}
{{- end }}

{{/* Distinct Secret names per TLS source, so switching between them never collides with a Secret the
     other source left behind (cert-manager keeps its Secret when the Certificate is deleted; the operator's own
     Secret is not part of the release). */}}
{{- define "backstage-operator.webhookSecretName" -}}
{{- $mode := include "backstage-operator.webhookTlsMode" . }}
{{- if eq $mode "cert-manager" }}
{{- include "backstage-operator.suffixedName" (list . "webhook-cm-tls") }}
{{- else if eq $mode "existing" }}
{{- .Values.webhook.selfSigned.existingSecret }}
{{- else }}
{{- include "backstage-operator.suffixedName" (list . "webhook-operator-tls") }}
{{- end }}
{{- end }}

{{/* Where the webhook's TLS comes from: cert-manager, existing (a Secret the user provides) or operator (the
     operator makes, rotates and serves its own CA and certificate, and patches the caBundle: the default). */}}
{{- define "backstage-operator.webhookTlsMode" -}}
{{- if .Values.webhook.certManager.enabled }}cert-manager
{{- else if .Values.webhook.selfSigned.existingSecret }}existing
{{- else }}operator
{{- end }}
{{- end }}

{{/* The caBundle written into the webhook configuration: only for an existing Secret (cert-manager's cainjector
     or the operator fills it otherwise, so the rendered manifests never change between renders). */}}
{{- define "backstage-operator.webhookCaBundle" -}}
{{- $mode := include "backstage-operator.webhookTlsMode" . }}
{{- if eq $mode "existing" }}
{{- required "webhook.selfSigned.caBundle is required with webhook.selfSigned.existingSecret: the base64 PEM of the CA that signed its tls.crt (base64 -w0 ca.crt)" .Values.webhook.selfSigned.caBundle }}
{{- end }}
{{- end }}

{{- define "backstage-operator.webhookCaName" -}}
{{- include "backstage-operator.suffixedName" (list . "webhook-ca") }}
{{- end }}

{{/* The scrape job label both monitors set, and the alerts select. */}}
{{- define "backstage-operator.metricsJob" -}}
{{- include "backstage-operator.fullname" . }}
{{- end }}

{{/* Logger levels as BACKSTAGE_LOG_LEVELS reads them: logger=level,... (sorted by logger). */}}
{{- define "backstage-operator.loggerLevels" -}}
{{- $pairs := list }}
{{- range $logger, $level := . }}
{{- $pairs = append $pairs (printf "%s=%s" $logger $level) }}
{{- end }}
{{- join "," $pairs }}
{{- end }}

{{- define "backstage-operator.webhookCertificateName" -}}
{{- include "backstage-operator.suffixedName" (list . "webhook") }}
{{- end }}

{{- define "backstage-operator.webhookIssuerName" -}}
{{- include "backstage-operator.suffixedName" (list . "selfsigned") }}
{{- end }}

{{/* The names the API server may use to reach the webhook Service (one per line). */}}
{{- define "backstage-operator.webhookDnsNames" -}}
{{- $svc := include "backstage-operator.webhookServiceName" . }}
{{- $ns := .Release.Namespace }}
- {{ $svc }}
- {{ printf "%s.%s" $svc $ns }}
- {{ printf "%s.%s.svc" $svc $ns }}
- {{ printf "%s.%s.svc.cluster.local" $svc $ns }}
{{- end }}

{{/* RBAC -------------------------------------------------------------------------------------------- */}}

{{/*
What the operator does in a watched namespace, verb by verb. No wildcards: bin/helm-check fails on any.
*/}}
{{- define "backstage-operator.operatorRules" -}}
# Its own resources: watched, finalizers and annotations patched.
- apiGroups: ["backstage.dev"]
  resources: ["backstagetopologies", "backstageworkerpools"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["backstage.dev"]
  resources: ["backstagetopologies/status", "backstageworkerpools/status"]
  verbs: ["get", "patch", "update"]
# Setting ownerReferences with blockOwnerDeletion on a pool's Deployment and ConfigMap needs update on
# the owner's finalizers subresource (OwnerReferencesPermissionEnforcement).
- apiGroups: ["backstage.dev"]
  resources: ["backstagetopologies/finalizers", "backstageworkerpools/finalizers"]
  verbs: ["update", "patch"]
# A pool's workers and their rendered runtime configuration.
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
# A pool's pods, listed (at most once a minute per pool) to measure their creation -> Ready time for the autoscaler.
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list"]
# Connection Secrets referenced by topologies: read by name, never listed or watched.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get"]
# Events on pools and topologies; get lets a repeated Event bump its count instead of piling up.
- apiGroups: [""]
  resources: ["events"]
  verbs: ["get", "create", "patch"]
{{- end }}

{{/*
The namespaces the operator watches, as a JSON list: watchNamespaces when it lists some, else the release namespace
alone; [] (= all namespaces, a ClusterRole) only with watchAllNamespaces: true.
*/}}
{{- define "backstage-operator.watchNamespaces" -}}
{{- if .Values.watchAllNamespaces -}}
{{- if .Values.watchNamespaces -}}
{{- fail "watchAllNamespaces: true and a watchNamespaces list exclude each other: set one of them" -}}
{{- end -}}
[]
{{- else if .Values.watchNamespaces -}}
{{- toJson .Values.watchNamespaces -}}
{{- else -}}
{{- toJson (list .Release.Namespace) -}}
{{- end -}}
{{- end -}}
