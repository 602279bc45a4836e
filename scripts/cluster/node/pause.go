// The sandbox process of every pod on the real node: it holds the pod's namespaces open, reaps any
// orphan re-parented to it, and exits on SIGINT or SIGTERM. build.sh compiles it (static, no cgo) and
// node.sh packs it as the image containerd's CRI uses for pod sandboxes: the public pause image lives in
// a registry this machine cannot reach.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
