// Production entry: load the environment, build the service, run its entry points until SIGTERM.
import { serviceMain } from '@ordering/http';
import { loadWebhooksConfig } from './config';
import { buildWebhooksService } from './service';

serviceMain(loadWebhooksConfig, buildWebhooksService);
