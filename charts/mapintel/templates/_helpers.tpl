{{- define "mapintel.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "mapintel.fullname" -}}
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

{{- define "mapintel.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "mapintel.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one role: (dict "root" $ "role" "api") */}}
{{- define "mapintel.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mapintel.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{/* The ServiceAccount of one role, one per role: (dict "root" $ "role" "api"). serviceAccount.name is
the prefix; with serviceAccount.create=false, accounts of these names must exist. */}}
{{- define "mapintel.serviceAccountName" -}}
{{- printf "%s-%s" (default (include "mapintel.fullname" .root) .root.Values.serviceAccount.name) .role | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "mapintel.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The Secret the chart makes when the values give URLs or keys instead of existing Secrets. */}}
{{- define "mapintel.secretName" -}}
{{- printf "%s-env" (include "mapintel.fullname" .) -}}
{{- end -}}

{{/* True when the values give connection URLs or keys: the chart then makes the Secret holding them. */}}
{{- define "mapintel.createSecret" -}}
{{- if or .Values.database.url .Values.redis.url .Values.secrets.encryptionKey .Values.secrets.adminToken .Values.database.sessionUrl -}}true{{- end -}}
{{- end -}}

{{/*
Without URLs or keys in the values the pods read a Secret named <fullname>-env that the operator of the
cluster makes (keys DATABASE_URL, REDIS_URL, SERVICE_ENCRYPTION_KEY, optional SERVICE_ADMIN_TOKEN); with
some of them, the chart makes it and every one must come from a value or an existing Secret.
*/}}
{{- define "mapintel.checkValues" -}}
{{- if eq (include "mapintel.workerSizedByOperator" .) "true" -}}
{{- if .Values.worker.autoscaling.enabled -}}
{{- fail "worker.autoscale.mode operator and worker.autoscaling.enabled (the HPA) would both set the worker replicas: choose one" -}}
{{- end -}}
{{- if not .Values.operator.enabled -}}
{{- fail "worker.autoscale.mode operator needs operator.enabled" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.ingress.enabled (not .Values.ingress.trustedProxies) (not (hasKey .Values.env "SERVICE_TRUSTED_PROXIES")) -}}
{{- fail "ingress.trustedProxies is required with ingress.enabled: the addresses or CIDR of the Ingress controller's pods (the cluster's pod CIDR, e.g. 10.244.0.0/16); without it every client shares the controller's address for rate limits" -}}
{{- end -}}
{{- if include "mapintel.createSecret" . -}}
{{- if not (or .Values.database.url .Values.database.existingSecret) -}}
{{- fail "database.url or database.existingSecret is required: the chart runs against an external PostgreSQL" -}}
{{- end -}}
{{- if not (or .Values.redis.url .Values.redis.existingSecret) -}}
{{- fail "redis.url or redis.existingSecret is required: the chart runs against an external Redis" -}}
{{- end -}}
{{- end -}}
{{- include "mapintel.checkEnvSecret" . -}}
{{- end -}}

{{/* "true" when the operator sizes the worker Deployment (worker.autoscale.mode operator). */}}
{{- define "mapintel.workerSizedByOperator" -}}
{{- and .Values.worker.enabled .Values.worker.autoscale (eq (toString .Values.worker.autoscale.mode) "operator") -}}
{{- end -}}

{{/* Environment of every mapintel container. */}}
{{- define "mapintel.env" -}}
{{- $own := include "mapintel.secretName" . -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ default $own .Values.database.existingSecret }}
      key: {{ if .Values.database.existingSecret }}{{ .Values.database.existingSecretKey }}{{ else }}DATABASE_URL{{ end }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ default $own .Values.redis.existingSecret }}
      key: {{ if .Values.redis.existingSecret }}{{ .Values.redis.existingSecretKey }}{{ else }}REDIS_URL{{ end }}
- name: SERVICE_ENCRYPTION_KEY
  valueFrom:
    secretKeyRef:
      name: {{ default $own .Values.secrets.existingSecret }}
      key: {{ if .Values.secrets.existingSecret }}{{ .Values.secrets.encryptionKeyKey }}{{ else }}SERVICE_ENCRYPTION_KEY{{ end }}
{{- if or .Values.secrets.adminToken .Values.secrets.existingSecret (not (include "mapintel.createSecret" .)) }}
- name: SERVICE_ADMIN_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ default $own .Values.secrets.existingSecret }}
      key: {{ if .Values.secrets.existingSecret }}{{ .Values.secrets.adminTokenKey }}{{ else }}SERVICE_ADMIN_TOKEN{{ end }}
      optional: true
{{- end }}
{{- include "mapintel.dayTwoEnv" . }}
- name: DATABASE_POOL_MAX
  value: {{ .Values.database.poolMax | quote }}
- name: DATABASE_POOL_MIN
  value: {{ .Values.database.poolMin | quote }}
- name: DATABASE_PREPARED_STATEMENTS
  value: {{ .Values.database.preparedStatements | quote }}
- name: REDIS_KEY_PREFIX
  value: {{ .Values.redis.keyPrefix | quote }}
- name: SERVICE_SSE_ENABLED
  value: {{ .Values.features.sse | quote }}
- name: SERVICE_WEBHOOKS_ENABLED
  value: {{ .Values.features.webhooks | quote }}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: PORT
  value: "8080"
- name: OPS_PORT
  value: {{ .Values.service.opsPort | quote }}
{{- if and .Values.ingress.trustedProxies (not (hasKey .Values.env "SERVICE_TRUSTED_PROXIES")) }}
- name: SERVICE_TRUSTED_PROXIES
  value: {{ join "," .Values.ingress.trustedProxies | quote }}
{{- end }}
{{- range $k, $v := .Values.env }}
- name: {{ $k }}
  value: {{ $v | quote }}
{{- end }}
{{- end -}}
