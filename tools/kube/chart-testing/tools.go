//go:build tools

// Pins chart-testing's command as a dependency of this module, so `go build` of it is reproducible.
package tools

import _ "github.com/helm/chart-testing/v3/ct"
