// CoreDNS with only the plugins cluster DNS uses (the Corefile in coredns.yaml): a smaller, faster
// build than upstream's main, which links every plugin and their cloud SDKs. build.sh compiles it
// against the pinned github.com/coredns/coredns release.
package main

import (
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"

	"github.com/coredns/coredns/coremain"
)

func main() {
	coremain.Run()
}
