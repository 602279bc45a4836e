// The local cluster's dynamic volume provisioner: every PVC of the `standard` StorageClass gets a
// world-writable directory on this host (as kind's local-path-provisioner gives), so containers that
// run as non-root can write their volumes. kube-controller-manager's in-tree hostPath provisioner
// makes 0750 directories owned by root instead. build.sh compiles this file against
// sigs.k8s.io/sig-storage-lib-external-provisioner; up.sh runs it as a host process.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

// hostPathProvisioner keeps every volume as a direct child of base, named after its PV.
type hostPathProvisioner struct {
	name string
	base string // absolute and clean
}

// volumeDir is <base>/<pv name>, or an error if that would not be a direct child of base.
func (p *hostPathProvisioner) volumeDir(pvName string) (string, error) {
	dir := filepath.Join(p.base, pvName)
	if filepath.Dir(dir) != p.base {
		return "", fmt.Errorf("PV name %q does not name a directory directly under %s", pvName, p.base)
	}
	return dir, nil
}

func (p *hostPathProvisioner) Provision(_ context.Context, opts controller.ProvisionOptions) (*v1.PersistentVolume, controller.ProvisioningState, error) {
	claim := opts.PVC
	// The library already turns block claims away (this type is no BlockProvisioner); this check
	// only keeps the message clear should that ever change.
	if claim.Spec.VolumeMode != nil && *claim.Spec.VolumeMode == v1.PersistentVolumeBlock {
		return nil, controller.ProvisioningFinished, fmt.Errorf("%s provides directories only: volumeMode Block is not supported", p.name)
	}
	dir, err := p.volumeDir(opts.PVName)
	if err != nil {
		return nil, controller.ProvisioningFinished, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, controller.ProvisioningFinished, err
	}
	// MkdirAll is subject to the umask; the point of this provisioner is a directory any container
	// UID can write, so set the mode explicitly (also when a retry finds the directory already there).
	if err := os.Chmod(dir, 0o777); err != nil {
		return nil, controller.ProvisioningFinished, err
	}

	reclaim := v1.PersistentVolumeReclaimDelete // the API's default for a class without a policy
	if opts.StorageClass.ReclaimPolicy != nil {
		reclaim = *opts.StorageClass.ReclaimPolicy
	}
	// Directory, not DirectoryOrCreate: should the directory vanish, kubelet must fail the mount
	// rather than quietly create a root-owned 0755 one that non-root containers cannot write.
	hostPathType := v1.HostPathDirectory
	filesystem := v1.PersistentVolumeFilesystem
	// No node affinity: the one real node shares this host's filesystem, and on kwok nodes nothing
	// is mounted. StorageClass mountOptions are dropped: the API rejects them on hostPath volumes.
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: opts.PVName},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: reclaim,
			AccessModes:                   claim.Spec.AccessModes,
			VolumeMode:                    &filesystem,
			Capacity:                      v1.ResourceList{v1.ResourceStorage: claim.Spec.Resources.Requests[v1.ResourceStorage]},
			PersistentVolumeSource: v1.PersistentVolumeSource{
				HostPath: &v1.HostPathVolumeSource{Path: dir, Type: &hostPathType},
			},
		},
	}
	klog.InfoS("provisioned", "pv", opts.PVName, "claim", klog.KObj(claim), "dir", dir, "reclaimPolicy", reclaim)
	return pv, controller.ProvisioningFinished, nil
}

// Delete is called only for PVs this provisioner made whose reclaim policy is Delete (the library
// checks both). It still refuses any path that is not one of our directories: a PV's spec can be
// edited, and this process runs as root.
func (p *hostPathProvisioner) Delete(_ context.Context, pv *v1.PersistentVolume) error {
	if pv.Spec.HostPath == nil {
		return &controller.IgnoredError{Reason: "not a hostPath volume"}
	}
	want, err := p.volumeDir(pv.Name)
	if err != nil {
		return err
	}
	if got := filepath.Clean(pv.Spec.HostPath.Path); got != want {
		return fmt.Errorf("refusing to delete %s: PV %s should be backed by %s", got, pv.Name, want)
	}
	// RemoveAll does not follow symlinks, so a link planted inside the volume cannot reach out of it.
	if err := os.RemoveAll(want); err != nil {
		return err
	}
	klog.InfoS("deleted", "pv", pv.Name, "dir", want)
	return nil
}

func main() {
	klog.InitFlags(nil)
	defaultBase := os.Getenv("HOSTPATH_PROVISIONER_DIR")
	if defaultBase == "" {
		defaultBase = "/tmp/hostpath_pv"
	}
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig to reach the API server with (in-cluster config if empty)")
	base := flag.String("base-dir", defaultBase, "directory that holds the volumes (env HOSTPATH_PROVISIONER_DIR)")
	name := flag.String("provisioner-name", "colony.local/hostpath", "provisioner name that StorageClasses refer to")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	absBase, err := filepath.Abs(*base)
	if err == nil {
		err = os.MkdirAll(absBase, 0o755)
	}
	if err != nil {
		klog.ErrorS(err, "cannot prepare the base directory", "dir", *base)
		klog.FlushAndExit(klog.ExitFlushTimeout, 1)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		klog.ErrorS(err, "cannot load the kubeconfig", "path", *kubeconfig)
		klog.FlushAndExit(klog.ExitFlushTimeout, 1)
	}
	config.UserAgent = "colony-hostpath-provisioner"

	provisioner := &hostPathProvisioner{name: *name, base: absBase}
	klog.InfoS("starting", "provisioner", *name, "baseDir", absBase)
	// One instance per cluster, so no leader election (and no Lease permissions to grant).
	controller.NewProvisionController(ctx, kubernetes.NewForConfigOrDie(config), *name, provisioner,
		controller.LeaderElection(false),
	).Run(ctx)
	klog.Flush()
}
