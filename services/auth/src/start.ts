// The production process: load the configuration (refusing to start on a bad value), build the
// service and run its entry points until SIGTERM/SIGINT; `node start.js migrate` only migrates its
// database (the chart's pre-upgrade Job).
import { serviceProcess } from '@ordering/service';
import { migrations } from '../migrations';
import { loadAuthConfig } from './config';
import { buildAuthService } from './service';

serviceProcess(loadAuthConfig, buildAuthService, migrations);
