package org.pcx.connector;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.OptionalLong;

/**
 * An AppliedStore in memory (webhooks.ts MemoryAppliedStore): the last {@code maxEventIds} event
 * ids (the oldest forgotten first) and the highest applied version of every subject. Lost on
 * restart: a connector that must survive one keeps these in its own records (the example does).
 */
public final class MemoryAppliedStore implements AppliedStore {
  private final LinkedHashSet<String> ids = new LinkedHashSet<>();
  private final Map<String, Long> versions = new HashMap<>();
  private final int maxEventIds;

  public MemoryAppliedStore(int maxEventIds) {
    if (maxEventIds < 1) throw new IllegalArgumentException("maxEventIds must be positive");
    this.maxEventIds = maxEventIds;
  }

  public MemoryAppliedStore() {
    this(10_000);
  }

  @Override public synchronized boolean hasEvent(String id) { return ids.contains(id); }

  @Override
  public synchronized OptionalLong appliedVersion(String subject) {
    Long version = versions.get(subject);
    return version == null ? OptionalLong.empty() : OptionalLong.of(version);
  }

  @Override
  public synchronized void record(String id, String subject, long resourceVersion) {
    ids.remove(id);
    ids.add(id);
    while (ids.size() > maxEventIds) ids.remove(ids.iterator().next());
    versions.merge(subject, resourceVersion, Math::max);
  }
}
