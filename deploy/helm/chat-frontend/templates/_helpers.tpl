{{- define "chat-frontend.fullname" -}}
{{- printf "%s-frontend" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "chat-frontend.labels" -}}
app.kubernetes.io/name: chat-frontend
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
