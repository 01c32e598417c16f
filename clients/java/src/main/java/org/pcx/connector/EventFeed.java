package org.pcx.connector;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The event feed consumer (GET /events; sdk/src/feed.ts) by the delivery rules: events come at
 * least once and in order per resource only, so an event id applied before is skipped (a
 * duplicate) and so is an event whose resourceversion is not above the one applied for its subject
 * (stale: an older version seen after a newer one). An event counts as applied, and the cursor
 * moves past its page, only after the handler returned: a crash or an exception in the handler
 * gets the event again next time, so handlers must be idempotent (or the store durable).
 */
public final class EventFeed {
  /** Handles one event; may throw (the event is then not recorded as applied). */
  public interface Handler {
    void handle(JsonNode event) throws Exception;
  }

  /** Where the consumer keeps its place: the cursor of the last finished page. */
  public interface CursorStore {
    String load();

    void save(String cursor);
  }

  private final PcxClient pcx;
  private final AppliedStore applied;
  private final CursorStore cursors;
  private final long pollIntervalMs;
  private volatile boolean stopped;
  private Consumer<String> onSkip = why -> { };
  private String cursor;

  public EventFeed(PcxClient pcx, AppliedStore applied, CursorStore cursors, long pollIntervalMs) {
    this.pcx = pcx;
    this.applied = applied == null ? new MemoryAppliedStore() : applied;
    this.cursors = cursors;
    this.pollIntervalMs = pollIntervalMs;
    this.cursor = cursors == null ? null : cursors.load();
  }

  public String cursor() { return cursor; }

  /** Told "duplicate <id>" or "stale <id>" for each event skipped by the rules. */
  public EventFeed onSkip(Consumer<String> listener) {
    this.onSkip = listener;
    return this;
  }

  /** Ends {@link #follow} after the event being handled (or the current wait). */
  public void stop() { stopped = true; }

  public boolean stopped() { return stopped; }

  private JsonNode page(Integer limit) {
    Map<String, Object> query = new LinkedHashMap<>();
    if (cursor != null) query.put("cursor", cursor);
    if (limit != null) query.put("limit", limit);
    return pcx.request("GET", "/events", null, query, null, Call.defaults());
  }

  /**
   * Moves the cursor to the feed's end without handling what is before it, and saves it. A
   * consumer that acts on what happens after it starts calls this before it acts (before it
   * publishes), so that no answer to its own action falls before its cursor.
   */
  public String skipToEnd() {
    for (;;) {
      JsonNode page = page(200);
      String next = page.path("nextCursor").asText(null);
      boolean moved = next != null && !next.equals(cursor);
      if (next != null) cursor = next;
      if (page.path("items").size() == 0 || !moved) break;
    }
    if (cursors != null && cursor != null) cursors.save(cursor);
    return cursor;
  }

  /**
   * Reads the feed from the cursor and hands each event to apply to {@code handler}; at the end
   * of the feed waits {@code pollIntervalMs} and reads again, until {@link #stop} or
   * {@code until} says so (checked after each event and each wait). Without {@code follow}
   * returns at the feed's end.
   */
  public void follow(Handler handler, boolean follow, Supplier<Boolean> until) throws Exception {
    while (!stopped) {
      JsonNode page = page(null);
      for (JsonNode event : page.path("items")) {
        if (stopped) return;
        String skip = AppliedStore.skipReason(applied, event);
        if (skip != null) {
          onSkip.accept(skip + " " + event.path("id").asText());
          continue;
        }
        handler.handle(event);
        applied.record(event.path("id").asText(), event.path("subject").asText(), event.path("resourceversion").asLong());
        if (until != null && until.get()) return;
      }
      String next = page.path("nextCursor").asText(null);
      boolean moved = next != null && !next.equals(cursor);
      if (next != null) cursor = next;
      if (moved && cursors != null) cursors.save(cursor);
      if (page.path("items").size() == 0) {
        if (!follow) return;
        Thread.sleep(pollIntervalMs);
      }
    }
  }
}
