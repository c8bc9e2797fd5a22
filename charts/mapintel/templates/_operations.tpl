{{/* Scaling, disruption and render-time checks of settings (docs/kubernetes.md, "Scaling and disruption"). */}}

{{/* True when the stream HPA scales on open connections: forced by a value, or the custom metrics API is served. */}}
{{- define "mapintel.streamConnectionsMetric" -}}
{{- $a := .Values.stream.autoscaling -}}
{{- if and .Values.stream.enabled $a.enabled $a.openConnections -}}
{{- $on := $a.openConnections.enabled -}}
{{- if or (eq (toString $on) "true") (and (eq (toString $on) "auto") (.Capabilities.APIVersions.Has "custom.metrics.k8s.io/v1beta1")) -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{/* True when a ServiceMonitor is asked for and the Prometheus Operator's API is served. */}}
{{- define "mapintel.serviceMonitor" -}}
{{- if and .Values.serviceMonitor.enabled (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1") -}}true{{- end -}}
{{- end -}}

{{/* The replicas a role runs at least: (dict "v" <role values>). */}}
{{- define "mapintel.minReplicas" -}}
{{- if and .v.autoscaling .v.autoscaling.enabled -}}{{ .v.autoscaling.minReplicas }}{{- else -}}{{ .v.replicas }}{{- end -}}
{{- end -}}

{{/*
Environment variables the chart sets from its own values: giving them in env or extraEnv as well would
make two sources for one setting (the later one wins, silently), so the render refuses them.
*/}}
{{- define "mapintel.checkEnv" -}}
{{- $owned := dict
  "DATABASE_URL" "database.url or database.existingSecret"
  "REDIS_URL" "redis.url or redis.existingSecret"
  "SERVICE_ENCRYPTION_KEY" "secrets.encryptionKey or secrets.existingSecret"
  "SERVICE_ADMIN_TOKEN" "secrets.adminToken or secrets.existingSecret"
  "DATABASE_POOL_MAX" "database.poolMax"
  "DATABASE_POOL_MIN" "database.poolMin"
  "DATABASE_PREPARED_STATEMENTS" "database.preparedStatements"
  "REDIS_KEY_PREFIX" "redis.keyPrefix"
  "SERVICE_SSE_ENABLED" "features.sse"
  "SERVICE_WEBHOOKS_ENABLED" "features.webhooks"
  "LOG_LEVEL" "logLevel"
  "PORT" "nothing (the chart fixes the http port at 8080)"
  "OPS_PORT" "service.opsPort"
  "NODE_OPTIONS" "<role>.nodeOptions"
  "OPERATOR_NAMESPACE" "nothing (the operator's own namespace)"
  "OPERATOR_IDENTITY" "nothing (the pod's name)"
  "OPERATOR_LEASE_NAME" "nothing (<fullname>-operator)"
  "OPERATOR_LEASE_DURATION_SECONDS" "operator.leaseDurationSeconds"
  "OPERATOR_WATCH_NAMESPACES" "operator.watchNamespaces"
-}}
{{- range $name, $_ := .Values.env -}}
{{- if hasKey $owned $name -}}
{{- fail (printf "env.%s duplicates a setting of the chart: set %s instead" $name (get $owned $name)) -}}
{{- end -}}
{{- end -}}
{{- range $role := list "api" "stream" "worker" "operator" -}}
{{- range $e := (index $.Values $role).extraEnv -}}
{{- if hasKey $owned $e.name -}}
{{- fail (printf "%s.extraEnv %s duplicates a setting of the chart: set %s instead" $role $e.name (get $owned $e.name)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The grace period must cover the preStop sleep and the process's own shutdown: (dict "root" $ "role" "stream"). */}}
{{- define "mapintel.checkGrace" -}}
{{- $v := index .root.Values .role -}}
{{- if $v.preStopSleepSeconds -}}
{{- $grace := int (default 30 $v.terminationGracePeriodSeconds) -}}
{{- $shutdownMs := int (default "10000" (get .root.Values.env "SERVICE_SHUTDOWN_TIMEOUT_MS")) -}}
{{- /* api and stream pods also serve on for SERVICE_SHUTDOWN_DELAY_MS (5 s, set by the chart) before shutting down. */ -}}
{{- $delayMs := ternary 5000 0 (or (eq .role "api") (eq .role "stream")) -}}
{{- $needed := add (int $v.preStopSleepSeconds) (div (add $delayMs $shutdownMs 999) 1000) -}}
{{- if le $grace (int $needed) -}}
{{- fail (printf "%s.terminationGracePeriodSeconds (%d) must exceed %s.preStopSleepSeconds (%d) plus SERVICE_SHUTDOWN_DELAY_MS and SERVICE_SHUTDOWN_TIMEOUT_MS (%d s): the pod would be killed before it drains" .role $grace .role (int $v.preStopSleepSeconds) (div (add $delayMs $shutdownMs 999) 1000)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
