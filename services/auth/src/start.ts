// The production process: load the configuration (refusing to start on a bad value), build the
// service and run its entry points until SIGTERM/SIGINT.
import { serviceMain } from '@ordering/http';
import { loadAuthConfig } from './config';
import { buildAuthService } from './service';

serviceMain(loadAuthConfig, buildAuthService);
