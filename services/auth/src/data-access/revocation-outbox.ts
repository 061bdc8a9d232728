// Revocation announcements on TOPICS.auth, written to the transactional outbox that the relay of
// @ordering/messaging publishes (keyed `token.revoked:<jti>` / `grant.revoked:<grant_id>`).
import type { Knex } from 'knex';
import { AUTH_TOPIC, authRevocationKey, parseAuthRevocation, type AuthRevocation } from '@ordering/contracts';
import { EVENT_HEADERS, OUTBOX_TABLE } from '@ordering/messaging';
import type { RevocationPublisher } from '../domain/revocation-use-case';

export class OutboxRevocationPublisher implements RevocationPublisher {
  constructor(private readonly knex: Knex) {}

  async publish(message: AuthRevocation): Promise<void> {
    const valid = parseAuthRevocation(message);
    const key = authRevocationKey(valid);
    await this.knex(OUTBOX_TABLE)
      .insert({
        topic: AUTH_TOPIC,
        key,
        // The same revocation announced twice is one message.
        event_id: key,
        event_type: valid.type,
        payload: JSON.stringify(valid),
        headers: JSON.stringify({
          [EVENT_HEADERS.eventId]: key,
          [EVENT_HEADERS.eventType]: valid.type,
          [EVENT_HEADERS.contentType]: 'application/json',
        }),
      })
      .onConflict('event_id')
      .ignore();
  }
}
