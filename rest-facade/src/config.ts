/** The REST facade process (main.ts): its settings, declared once for both facades (the operator docs and the deployment checks read them too). */
import { facadeProcessEnv } from '@pylon/composition/facade-process';

export const restFacadeEnv = facadeProcessEnv(4001);
