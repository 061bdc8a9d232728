// Signature verification as an integrator does it: Stripe's SDK (same scheme: t=..., v1=...).
import Stripe from 'stripe';

const stripe = new Stripe('sk_test_webhooks_verifier_only');

/** The parsed event when the signature verifies with `secret`; throws otherwise. */
export function verifyWithStripe(
  body: string,
  signatureHeader: string | string[] | undefined,
  secret: string,
) {
  return stripe.webhooks.constructEvent(body, String(signatureHeader), secret) as unknown as Record<
    string,
    unknown
  >;
}
