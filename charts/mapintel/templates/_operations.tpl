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

{{/* The grace period must cover the preStop sleep and the process's own shutdown: (dict "root" $ "role" "stream"). */}}
{{- define "mapintel.checkGrace" -}}
{{- $v := index .root.Values .role -}}
{{- if $v.preStopSleepSeconds -}}
{{- $grace := int (default 30 $v.terminationGracePeriodSeconds) -}}
{{- $shutdownMs := int (default "10000" (get .root.Values.env "SERVICE_SHUTDOWN_TIMEOUT_MS")) -}}
{{- $needed := add (int $v.preStopSleepSeconds) (div (add $shutdownMs 999) 1000) -}}
{{- if le $grace (int $needed) -}}
{{- fail (printf "%s.terminationGracePeriodSeconds (%d) must exceed %s.preStopSleepSeconds (%d) plus SERVICE_SHUTDOWN_TIMEOUT_MS (%d s): the pod would be killed before it drains" .role $grace .role (int $v.preStopSleepSeconds) (div (add $shutdownMs 999) 1000)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
