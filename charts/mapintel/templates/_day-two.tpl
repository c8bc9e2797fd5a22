{{/*
Day-two settings of the chart: the session connection beside a pooled DATABASE_URL, TLS to PostgreSQL
and Redis (CA certificates from Secrets), and the encryption key the release keeps across upgrades.
*/}}

{{/* True when a CA Secret is mounted for PostgreSQL or Redis. */}}
{{- define "mapintel.tlsMounted" -}}
{{- if or .Values.database.tls.caSecret .Values.redis.tls.caSecret -}}true{{- end -}}
{{- end -}}

{{/* Environment of the day-two settings (inside mapintel.env). */}}
{{- define "mapintel.dayTwoEnv" -}}
{{- $own := include "mapintel.secretName" . -}}
{{- if or .Values.database.sessionUrl .Values.database.sessionExistingSecret }}
- name: DATABASE_SESSION_URL
  valueFrom:
    secretKeyRef:
      name: {{ default $own .Values.database.sessionExistingSecret }}
      key: {{ if .Values.database.sessionExistingSecret }}{{ .Values.database.sessionExistingSecretKey }}{{ else }}DATABASE_SESSION_URL{{ end }}
{{- end }}
{{- with .Values.database.tls.sslMode }}
- name: DATABASE_SSL_MODE
  value: {{ . | quote }}
{{- end }}
{{- if .Values.database.tls.caSecret }}
- name: DATABASE_CA_FILE
  value: /etc/mapintel/tls/postgres/{{ .Values.database.tls.caSecretKey }}
{{- end }}
{{- if .Values.redis.tls.caSecret }}
- name: REDIS_CA_FILE
  value: /etc/mapintel/tls/redis/{{ .Values.redis.tls.caSecretKey }}
{{- end }}
{{- end -}}

{{/* volumeMounts of the CA Secrets (inside a container's volumeMounts). */}}
{{- define "mapintel.tlsVolumeMounts" -}}
{{- if .Values.database.tls.caSecret }}
- name: postgres-ca
  mountPath: /etc/mapintel/tls/postgres
  readOnly: true
{{- end }}
{{- if .Values.redis.tls.caSecret }}
- name: redis-ca
  mountPath: /etc/mapintel/tls/redis
  readOnly: true
{{- end }}
{{- end -}}

{{/* volumes of the CA Secrets (inside a pod's volumes). */}}
{{- define "mapintel.tlsVolumes" -}}
{{- with .Values.database.tls.caSecret }}
- name: postgres-ca
  secret:
    secretName: {{ . }}
    items: [{ key: {{ $.Values.database.tls.caSecretKey | quote }}, path: {{ $.Values.database.tls.caSecretKey | quote }} }]
{{- end }}
{{- with .Values.redis.tls.caSecret }}
- name: redis-ca
  secret:
    secretName: {{ . }}
    items: [{ key: {{ $.Values.redis.tls.caSecretKey | quote }}, path: {{ $.Values.redis.tls.caSecretKey | quote }} }]
{{- end }}
{{- end -}}

{{/*
The encryption key of the chart's own Secret. A key given in the values is used, unless the Secret the
release already keeps holds another one: then the render fails (stored ACL keys and webhook secrets
would become unreadable) unless secrets.allowKeyChange says the change is meant. Without a key in the
values, the kept one is reused, or, on the first install, 32 random bytes are generated: an upgrade
never replaces it. (`helm template` cannot look the Secret up: it generates a new one on each render.)
*/}}
{{- define "mapintel.encryptionKey" -}}
{{- $kept := "" -}}
{{- $secret := lookup "v1" "Secret" .Release.Namespace (include "mapintel.secretName" .) -}}
{{- if and $secret $secret.data -}}
{{- $kept = index $secret.data "SERVICE_ENCRYPTION_KEY" | default "" | b64dec -}}
{{- end -}}
{{- if .Values.secrets.encryptionKey -}}
{{- if and $kept (ne $kept .Values.secrets.encryptionKey) (not .Values.secrets.allowKeyChange) -}}
{{- fail (printf "secrets.encryptionKey differs from the key Secret %s keeps: stored ACL keys and webhook secrets would become unreadable. Leave secrets.encryptionKey out to keep the key; set secrets.allowKeyChange=true only for a database with nothing encrypted by the old key (docs/operations.md)" (include "mapintel.secretName" .)) -}}
{{- end -}}
{{- .Values.secrets.encryptionKey -}}
{{- else if $kept -}}
{{- $kept -}}
{{- else -}}
{{- randBytes 32 -}}
{{- end -}}
{{- end -}}

{{/*
Without the chart's own Secret, the pods and the migrations hook read <fullname>-env made beforehand.
On a live install (the cluster answers lookups) a missing one fails the render at once, naming the
command, instead of a migrations Job that waits for it.
*/}}
{{- define "mapintel.checkEnvSecret" -}}
{{- if not (include "mapintel.createSecret" .) -}}
{{- $needed := or (not .Values.database.existingSecret) (not .Values.redis.existingSecret) (not .Values.secrets.existingSecret) -}}
{{- $live := lookup "v1" "Namespace" "" "kube-system" -}}
{{- if and $needed $live (not (lookup "v1" "Secret" .Release.Namespace (include "mapintel.secretName" .))) -}}
{{- fail (printf "the Secret %s does not exist in namespace %s: give database.url, redis.url (the chart then makes it and generates the encryption key) or create it first: kubectl -n %s create secret generic %s --from-literal=DATABASE_URL=postgres://... --from-literal=REDIS_URL=redis://... --from-literal=SERVICE_ENCRYPTION_KEY=$(openssl rand -base64 32)" (include "mapintel.secretName" .) .Release.Namespace .Release.Namespace (include "mapintel.secretName" .)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Soft topology spread of one role's pods, (dict "root" $ "role" "api"): across zones and nodes, never
blocking scheduling (ScheduleAnyway). Empty when topologySpread.enabled is false.
*/}}
{{- define "mapintel.topologySpread" -}}
{{- $t := .root.Values.topologySpread -}}
{{- if $t.enabled -}}
{{- range $key := $t.topologyKeys }}
- maxSkew: {{ $t.maxSkew }}
  topologyKey: {{ $key }}
  whenUnsatisfiable: {{ $t.whenUnsatisfiable }}
  labelSelector:
    matchLabels:
      {{- include "mapintel.selectorLabels" (dict "root" $.root "role" $.role) | nindent 6 }}
  matchLabelKeys: [pod-template-hash]
{{- end }}
{{- end -}}
{{- end -}}
