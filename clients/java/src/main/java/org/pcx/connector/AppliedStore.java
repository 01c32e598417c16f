package org.pcx.connector;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.OptionalLong;

/**
 * What a consumer has applied (webhooks.ts AppliedStore): the ids of applied events (delivery is
 * at least once) and, per subject, the highest resource version applied (events of one resource
 * may come out of order). A durable store should record in the same transaction that applies.
 */
public interface AppliedStore {
  boolean hasEvent(String id);

  OptionalLong appliedVersion(String subject);

  void record(String id, String subject, long resourceVersion);

  /** Why an event is not to be applied, by the delivery rules; null when it is to be applied. */
  static String skipReason(AppliedStore store, JsonNode event) {
    if (store.hasEvent(event.path("id").asText())) return "duplicate";
    OptionalLong applied = store.appliedVersion(event.path("subject").asText());
    if (applied.isPresent() && event.path("resourceversion").asLong() <= applied.getAsLong()) return "stale";
    return null;
  }
}
