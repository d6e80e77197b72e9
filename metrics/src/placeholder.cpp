// Metrics and reporters land here (issue 7).
