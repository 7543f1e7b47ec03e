/** The legacy adapter process (main.ts): its settings, declared once for both facades (the operator docs and the deployment checks read them too). */
import { facadeProcessEnv } from '@pylon/composition/facade-process';

export const legacyAdapterEnv = facadeProcessEnv(4080);
