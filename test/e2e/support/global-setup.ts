// The e2e tier needs a cluster and nothing else; it says so before any test starts.
export default function setup(): void {
  if (!process.env.KUBECONFIG) {
    throw new Error(
      'KUBECONFIG is not set: the e2e tier runs against a real cluster. Run `make test` (it starts the ' +
        'local control plane), export the KUBECONFIG line `npm run cluster:up` prints, or point it at kind.',
    );
  }
}
