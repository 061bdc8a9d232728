// Production entry: load the environment, build the service, run its entry points until SIGTERM;
// `node start.js migrate` only migrates its database (the chart's pre-upgrade Job).
import { serviceProcess } from '@ordering/service';
import { migrations } from '../migrations';
import { loadApprovalsConfig } from './config';
import { buildApprovalsService } from './service';

serviceProcess(loadApprovalsConfig, buildApprovalsService, migrations);
