// The e2e tier needs a cluster (and, in its default mode, the images to install); it says so before
// any test starts.
import { colonyMode, missingImageMessage } from './colony-under-test.ts';

export default function setup(): void {
  if (!process.env.KUBECONFIG) {
    throw new Error(
      'KUBECONFIG is not set: the e2e tier runs against a real cluster. Run `make test` (it starts the ' +
        'local control plane), export the KUBECONFIG line `npm run cluster:up` prints, or point it at kind.',
    );
  }
  if (colonyMode === 'install' && !process.env.COLONY_E2E_IMAGE) throw new Error(missingImageMessage);
}
