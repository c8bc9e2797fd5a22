// The pod sandbox ("pause") process of the e2e tier's node, built locally: no image is ever pulled.
module mapintel.local/tools/kube/pause

go 1.26.0
