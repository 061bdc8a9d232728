// What the OpenAPI document says about each operation forwarded to a service, beyond the route
// table: its id, tag, query, body, success answer and the conflicts it can meet. Keyed by
// `METHOD path`; the document generator refuses a route without an entry and an entry without a
// route, so the two tables stay equal. (The gateway's own GET /v1/openapi.json is described by the
// generator itself.) Statuses and bodies follow decisions.md (see gateway/README.md "OpenAPI document").
import {
  Approval,
  ApprovalChain,
  ApprovalList,
  ApprovalPreview,
  ApproveRequest,
  CancelOrderRequest,
  CatalogItem,
  CatalogItemList,
  CreateOrderRequest,
  CreateUserRequest,
  CreateWebhookRequest,
  Customer,
  CustomerList,
  DeletedWebhookSubscription,
  EmptyRequest,
  ListApprovalsQuery,
  ListCatalogItemsQuery,
  RetrieveCatalogItemQuery,
  ListCustomersQuery,
  ListOrdersQuery,
  ListUsersQuery,
  ListWebhookDeliveriesQuery,
  ListWebhooksQuery,
  Order,
  OrderList,
  PutApprovalChainRequest,
  RejectRequest,
  ReplayWebhookDeliveriesRequest,
  UpdateUserRequest,
  UpdateWebhookRequest,
  User,
  UserList,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookReplay,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
  WebhookSubscriptionList,
  ListOAuthClientsQuery,
  OAuthClientList,
  OAuthClientResource,
  OAuthClientWithSecret,
  type z,
} from '@ordering/contracts';

/** A decision by a user who no longer holds the approver or admin role (or is deactivated). */
const APPROVER_ROLE_REQUIRED = {
  code: 'approver_role_required',
  when: "when the token's user no longer holds the `approver` or `admin` role (or was deactivated)",
};

export const TAGS = {
  Orders: 'Orders of one or more catalog items, their approval state and cancellation',
  Catalog: 'The product catalog as seen by one customer account',
  Customers: "Customer accounts within the token's reach and their approval chains",
  Users: 'Shopper records of the customer accounts',
  Approvals: "Orders waiting in an approver's queue",
  Webhooks: 'Webhook subscriptions, their deliveries and signing secrets',
  'OAuth clients': "The account's OAuth clients, their secrets' due dates and rotation",
  Meta: 'The machine-readable description of this API',
} as const;
export type Tag = keyof typeof TAGS;

export interface OperationSpec {
  operationId: string;
  tag: Tag;
  description?: string;
  query?: z.ZodObject;
  body?: { schema: z.ZodType; required: boolean };
  /** Accepts `Idempotency-Key` (a creating POST). */
  idempotent?: boolean;
  success: { status: 200 | 201 | 202; description: string; schema: z.ZodType };
  /** `permission_error` codes of a 403 this operation can answer beyond `insufficient_scope`. */
  forbidden?: { code: string; when: string }[];
  /** Error codes of a 409 this operation can answer (beyond `idempotency_key_in_use`). */
  conflicts?: string[];
  /**
   * A query or body field names an account (or a user of one, as the approvals queue's `approver`),
   * which is 404 when outside the token's reach.
   */
  namesAccount?: boolean;
}

/** The optional body of an action without parameters: none or `{}`; a field in it is 422 `unknown_field`. */
const NO_PARAMETERS = { schema: EmptyRequest, required: false } as const;

export type RouteKey = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} ${string}`;

export const PATH_PARAMETER_DESCRIPTIONS: Record<string, string> = {
  id: 'Identifier of the resource',
  cust_id: 'Customer account identifier',
  login: 'Shopper login',
  approval_id: 'Approval identifier',
  delivery_id: 'Delivery identifier (the `Service-Delivery` header of its requests)',
};

const ok = (schema: z.ZodType, description: string) => ({ status: 200 as const, description, schema });

export const OPERATIONS: Record<RouteKey, OperationSpec> = {
  'GET /v1/orders': {
    operationId: 'listOrders',
    tag: 'Orders',
    description: 'Newest first (`submitted_at` descending, then `id`).',
    query: ListOrdersQuery,
    namesAccount: true,
    success: ok(OrderList, 'A page of orders'),
  },
  'POST /v1/orders': {
    operationId: 'createOrder',
    tag: 'Orders',
    description:
      "Places an order for `cust_id` (the token's account or a descendant). Starts `pending_approval` when " +
      "the total is above the account's `approval_required_over` and an approval chain applies, " +
      'otherwise `approved`. An unknown or unavailable item is 422 `invalid_item` / `item_unavailable` ' +
      '(param like `items[2].item_code`); a line total beyond 2^53 - 1 minor units 422 `amount_too_large` ' +
      '(param like `items[2].quantity`); an unknown address 422 `invalid_address`.',
    body: { schema: CreateOrderRequest, required: true },
    idempotent: true,
    namesAccount: true,
    success: { status: 201, description: 'The order placed', schema: Order },
  },
  'GET /v1/orders/{id}': {
    operationId: 'retrieveOrder',
    tag: 'Orders',
    description:
      "An order of the token's account or a descendant; any other is 404 `resource_missing`, like an unknown id.",
    success: ok(Order, 'The order'),
  },
  'POST /v1/orders/{id}/cancel': {
    operationId: 'cancelOrder',
    tag: 'Orders',
    description: 'Only in `pending_approval` or `approved`; withdraws pending approvals.',
    body: { schema: CancelOrderRequest, required: false },
    conflicts: ['order_not_cancellable'],
    success: ok(Order, 'The cancelled order (with `cancelled_at` and `cancellation`)'),
  },

  'GET /v1/catalog/items': {
    operationId: 'listCatalogItems',
    tag: 'Catalog',
    description:
      'The catalog as `cust_id` sees it: only the items visible to that account, each with its price tiers in ' +
      "the account's currency and its availability. Browsing is ordered by `item_code`; a search (`q`) by " +
      'relevance, then `item_code`.',
    query: ListCatalogItemsQuery,
    namesAccount: true,
    success: ok(CatalogItemList, 'A page of catalog items as seen by `cust_id`'),
  },
  'GET /v1/catalog/items/{id}': {
    operationId: 'retrieveCatalogItem',
    tag: 'Catalog',
    description: 'An item the account may not see is 404 `resource_missing`, like an unknown one.',
    query: RetrieveCatalogItemQuery,
    success: ok(CatalogItem, 'The catalog item'),
  },

  'GET /v1/customers': {
    operationId: 'listCustomers',
    tag: 'Customers',
    description: "The token's own account and every descendant.",
    query: ListCustomersQuery,
    success: ok(CustomerList, 'A page of customer accounts'),
  },
  'GET /v1/customers/{cust_id}': {
    operationId: 'retrieveCustomer',
    tag: 'Customers',
    description:
      "The token's account or one of its descendants, with its addresses; any other is 404 `resource_missing`.",
    success: ok(Customer, 'The customer account'),
  },
  'GET /v1/customers/{cust_id}/approval_chain': {
    operationId: 'retrieveApprovalChain',
    tag: 'Customers',
    description:
      "The chain that applies to the account: its own, or else its nearest ancestor's; `inherited_from` " +
      'names the account whose chain it is (null, with no steps, when none applies).',
    success: ok(ApprovalChain, "The account's approval chain"),
  },
  'PUT /v1/customers/{cust_id}/approval_chain': {
    operationId: 'replaceApprovalChain',
    tag: 'Customers',
    description:
      "Replaces the account's own chain (at most 20 steps); `steps: []` removes it, and the account " +
      "inherits its nearest ancestor's again. Each `approver` must be an active user of the caller's " +
      'account tree holding the `approver` or `admin` role (422 `invalid_value`, `param` `steps[i].approver`). ' +
      'Orders already waiting keep the chain they started with.',
    body: { schema: PutApprovalChainRequest, required: true },
    success: ok(ApprovalChain, 'The approval chain as replaced'),
  },

  'GET /v1/users': {
    operationId: 'listUsers',
    tag: 'Users',
    description:
      "The users of the token's account and its descendants (or of `cust_id` alone), ordered by `login`; " +
      '`status` and `role` narrow the list.',
    query: ListUsersQuery,
    namesAccount: true,
    success: ok(UserList, 'A page of users'),
  },
  'POST /v1/users': {
    operationId: 'createUser',
    tag: 'Users',
    description:
      'Creating a user with the `admin` role needs `admin:all` (403 `insufficient_scope` otherwise): an admin signs in with every scope.',
    body: { schema: CreateUserRequest, required: true },
    idempotent: true,
    namesAccount: true,
    conflicts: ['login_taken'],
    success: { status: 201, description: 'The user created', schema: User },
  },
  'GET /v1/users/{login}': {
    operationId: 'retrieveUser',
    tag: 'Users',
    description: "A user of the token's account or a descendant; any other login is 404 `resource_missing`.",
    success: ok(User, 'The user'),
  },
  'PATCH /v1/users/{login}': {
    operationId: 'updateUser',
    tag: 'Users',
    description:
      'Granting or removing the `admin` role, and changing a user who holds it, need `admin:all` (403 `insufficient_scope` otherwise).',
    body: { schema: UpdateUserRequest, required: true },
    success: ok(User, 'The user as updated'),
  },
  'POST /v1/users/{login}/deactivate': {
    operationId: 'deactivateUser',
    tag: 'Users',
    description: "The user can no longer sign in; the user's tokens stop working within 5 seconds.",
    body: NO_PARAMETERS,
    success: ok(User, 'The deactivated user'),
  },

  'GET /v1/approvals': {
    operationId: 'listApprovals',
    tag: 'Approvals',
    description:
      "Pending approvals (or those of `status`) in the approver's queue, oldest first, of accounts in the token's tree only. " +
      "Client-credentials tokens and admins (`admin:all`, or a user with the `admin` role) read any approver's queue of their account tree; " +
      "a shopper's or approver's own token reads only its own. " +
      'Another approver that the token may not read, one outside the tree, or an unknown login: 404 `resource_missing`, `param` `approver`.',
    query: ListApprovalsQuery,
    namesAccount: true,
    success: ok(ApprovalList, 'A page of approvals'),
  },
  'POST /v1/approvals/preview': {
    operationId: 'previewApproval',
    tag: 'Approvals',
    description:
      'Beyond the spec: for a draft order body (as `POST /v1/orders`), whether it would need approval, its total and the approvers it would walk. Creates nothing.',
    body: { schema: CreateOrderRequest, required: true },
    namesAccount: true,
    success: ok(ApprovalPreview, 'The preview'),
  },
  'POST /v1/approvals/{approval_id}/approve': {
    operationId: 'approveApproval',
    tag: 'Approvals',
    description:
      "Only an approval in the token's own login's queue (else 404), by a user who still holds the `approver` or `admin` role (else 403 `approver_role_required`; their pending approvals move to the account's admins).",
    body: { schema: ApproveRequest, required: false },
    forbidden: [APPROVER_ROLE_REQUIRED],
    conflicts: ['approval_not_pending'],
    success: ok(Approval, 'The approval, approved'),
  },
  'POST /v1/approvals/{approval_id}/reject': {
    operationId: 'rejectApproval',
    tag: 'Approvals',
    description:
      "Only an approval in the token's own login's queue (else 404), by a user who still holds the `approver` or `admin` role (else 403 `approver_role_required`). The order is cancelled.",
    body: { schema: RejectRequest, required: true },
    forbidden: [APPROVER_ROLE_REQUIRED],
    conflicts: ['approval_not_pending'],
    success: ok(Approval, 'The approval, rejected'),
  },

  'GET /v1/webhooks': {
    operationId: 'listWebhookSubscriptions',
    tag: 'Webhooks',
    description: "The token's account's subscriptions, oldest first.",
    query: ListWebhooksQuery,
    success: ok(WebhookSubscriptionList, 'A page of subscriptions (never with `signing_secret`)'),
  },
  'POST /v1/webhooks': {
    operationId: 'createWebhookSubscription',
    tag: 'Webhooks',
    description: 'An account holds at most 500 subscriptions (`webhook_limit_reached` beyond).',
    body: { schema: CreateWebhookRequest, required: true },
    idempotent: true,
    conflicts: ['webhook_limit_reached'],
    success: {
      status: 201,
      description: 'The subscription, with its `signing_secret` (shown only here)',
      schema: WebhookSubscriptionWithSecret,
    },
  },
  'GET /v1/webhooks/{id}': {
    operationId: 'retrieveWebhookSubscription',
    tag: 'Webhooks',
    description: "A subscription of the token's account; any other is 404 `resource_missing`.",
    success: ok(WebhookSubscription, 'The subscription (without `signing_secret`)'),
  },
  'PATCH /v1/webhooks/{id}': {
    operationId: 'updateWebhookSubscription',
    tag: 'Webhooks',
    description:
      '`status: "disabled"` stops every request to the endpoint: new events are not delivered, and ' +
      'deliveries already queued or waiting for a retry are held (pending, no attempt). ' +
      '`status: "enabled"` again makes the held ones due at once; one whose 24 hours of retries ended ' +
      'while held is `failed` (replay it).',
    body: { schema: UpdateWebhookRequest, required: true },
    success: ok(WebhookSubscription, 'The subscription as updated'),
  },
  'DELETE /v1/webhooks/{id}': {
    operationId: 'deleteWebhookSubscription',
    tag: 'Webhooks',
    description:
      'Deletes the subscription with its signing secrets and its deliveries (and their attempts): nothing ' +
      'more is sent to its endpoint, pending deliveries included. The answer is the deleted marker.',
    success: ok(DeletedWebhookSubscription, 'The subscription is deleted'),
  },
  'POST /v1/webhooks/{id}/rotate_secret': {
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    description:
      'The old secret keeps signing (a second `v1` entry) for 24 hours; each secret rotated away keeps ' +
      'its own 24 hours (its own `v1`, newest first). At most 10 secrets sign at once: one more ends ' +
      'the oldest overlap.',
    body: NO_PARAMETERS,
    success: ok(WebhookSubscriptionWithSecret, 'The subscription with its new `signing_secret`'),
  },
  'POST /v1/webhooks/{id}/test': {
    operationId: 'testWebhookSubscription',
    tag: 'Webhooks',
    description:
      'Delivers an event of type `webhook.test` to this subscription alone, also while it is disabled ' +
      '(an endpoint can be checked before it is enabled; its events stay held until then).',
    body: NO_PARAMETERS,
    success: { status: 202, description: 'The delivery of the test event, queued', schema: WebhookDelivery },
  },
  'GET /v1/webhooks/{id}/deliveries': {
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    description:
      "The subscription's deliveries, newest first, each with its attempts (status code, latency, error); " +
      '`status`, `event_type`, `created_after` (inclusive) and `created_before` (exclusive) narrow the list.',
    query: ListWebhookDeliveriesQuery,
    success: ok(WebhookDeliveryList, 'A page of deliveries, newest first, with their attempts'),
  },
  'GET /v1/webhooks/{id}/deliveries/{delivery_id}': {
    operationId: 'retrieveWebhookDelivery',
    tag: 'Webhooks',
    description:
      'One delivery with every attempt, its status (`pending`, `succeeded`, `failed`) and, while pending, ' +
      'when the next attempt is due.',
    success: ok(WebhookDelivery, 'The delivery with every attempt'),
  },
  'POST /v1/webhooks/{id}/replay': {
    operationId: 'replayWebhookDeliveries',
    tag: 'Webhooks',
    description:
      'Sends every `failed` delivery created in [`since`, `until`) again, each with its own ' +
      '`Service-Delivery` id. `dry_run: true` only counts them. A disabled subscription is ' +
      '`webhook_disabled` (its dry run still counts).',
    body: { schema: ReplayWebhookDeliveriesRequest, required: true },
    conflicts: ['webhook_disabled'],
    success: ok(WebhookReplay, 'How many deliveries were (or, on a dry run, would be) sent again'),
  },
  'POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay': {
    operationId: 'replayWebhookDelivery',
    tag: 'Webhooks',
    description:
      'Sends the delivery again, with the same `Service-Delivery` id. A disabled subscription is ' +
      '`webhook_disabled`.',
    body: NO_PARAMETERS,
    conflicts: ['webhook_disabled'],
    success: { status: 202, description: 'The delivery, queued again', schema: WebhookDelivery },
  },

  'GET /v1/oauth_clients': {
    operationId: 'listOAuthClients',
    tag: 'OAuth clients',
    description:
      "The OAuth clients issued to the token's account and its descendants, by id, never with a secret. " +
      'Each secret falls due 180 days after it was issued (`secret_due_at`); from then on it gets no token ' +
      '(`invalid_client` at the token endpoint) until it is rotated.',
    query: ListOAuthClientsQuery,
    success: ok(OAuthClientList, 'A page of OAuth clients'),
  },
  'GET /v1/oauth_clients/{id}': {
    operationId: 'retrieveOAuthClient',
    tag: 'OAuth clients',
    description:
      "An OAuth client of the token's account or a descendant, with its secret's due date; never a secret. " +
      'Any other is 404 `resource_missing`.',
    success: ok(OAuthClientResource, 'The OAuth client (without a secret)'),
  },
  'POST /v1/oauth_clients/{id}/rotate_secret': {
    operationId: 'rotateOAuthClientSecret',
    tag: 'OAuth clients',
    description:
      'Issues a new secret, returned this once as `client_secret`. The previous secret keeps working for ' +
      '24 hours (`previous_secret_expires_at`; never past its own due date) so that a deployment can ' +
      'switch; rotating again within those 24 hours ends it at once. A `native` client has no secret: ' +
      '409 `client_has_no_secret`; a disabled client: 409 `client_disabled`.',
    conflicts: ['client_has_no_secret', 'client_disabled'],
    body: NO_PARAMETERS,
    success: ok(OAuthClientWithSecret, 'The OAuth client with its new `client_secret`'),
  },
};
