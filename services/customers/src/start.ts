// Production entry: load the environment, build the service, run its entry points until SIGTERM.
import { serviceMain } from '@ordering/http';
import { loadCustomersConfig } from './config';
import { buildCustomersService } from './service';

serviceMain(loadCustomersConfig, buildCustomersService);
