// The production process: load the configuration (refusing to start on a bad value), build the
// portal and run it until SIGTERM/SIGINT. It has no database, so no `migrate` mode.
import { serviceMain } from '@ordering/http';
import { loadPortalConfig } from './config';
import { buildPortal } from './service';

serviceMain(loadPortalConfig, buildPortal);
