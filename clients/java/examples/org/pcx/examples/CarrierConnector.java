package org.pcx.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.pcx.client.ApiException;
import org.pcx.client.api.ExecutionHandoversApi;
import org.pcx.client.api.MatchProposalsApi;
import org.pcx.client.model.ExecutionHandover;
import org.pcx.client.model.MatchProposal;
import org.pcx.client.model.MatchProposalDecisionRequest;
import org.pcx.client.model.MatchProposalMatchDecision;
import org.pcx.client.model.TransportTender;
import org.pcx.client.model.TransportTenderDecisionRequest;
import org.pcx.connector.AppliedStore;
import org.pcx.connector.Call;
import org.pcx.connector.EventFeed;
import org.pcx.connector.PcxClient;
import org.pcx.connector.PcxProblem;
import org.pcx.connector.PrivateJwk;

/**
 * An example carrier connector on the Java client: a port of examples/carrier/connector.ts (read
 * its header for the whole story). Its own records are two JSON files: the trucks and the rule
 * (trucks.json), and its state (what it published, decided and imported, the feed cursor and the
 * events applied), written after every change, so a restart goes on where it stopped and never
 * publishes or applies anything twice.
 *
 * What it does: publishes an offer for every truck that has none open (with an Idempotency-Key
 * kept in its state before the call); follows its organization's event feed (on the first start
 * from its end, taken before publishing); decides a match proposal for one of its offers by its
 * rule (partner and minimum score), deciding again on a newer version after a 409; accepts a
 * tender for a proposal it accepted, naming the revision, with If-Match; imports a handover
 * (acknowledgement with an Idempotency-Key), reports the trip's milestones and its outcome (and,
 * under the kit, a correction), each with a deduplication key.
 *
 * Under the conformance kit, PCX_SCENARIO names the kit's scenario file, which takes the place of
 * trucks.json; the state goes beside it. SIGTERM and SIGINT stop it with exit status 0.
 *
 * Reads of proposals and handovers go through the generated API classes (pcx.api(...)) and come
 * back as generated models; tenders are read as models through pcx.get(..., TransportTender.class);
 * the offer's create body is plain JSON (its areas are a union the generated models carry as Object).
 */
public final class CarrierConnector {
  private static final String USAGE = String.join("\n",
      "Usage: java -cp \"$(cat clients/java/build/classpath.txt)\" org.pcx.examples.CarrierConnector [options]",
      "",
      "An example carrier connector on the Java client: publishes its trucks, decides proposals by its rule,",
      "accepts tenders, imports handovers and reports the trips.",
      "",
      "Options:",
      "  --base-url URL             the broker (default: PCX_BASE_URL or http://localhost:8080)",
      "  --client-id ID             the connector's client id (default: PCX_CLIENT_ID or alpine-tms);",
      "                             its secret in PCX_CLIENT_SECRET",
      "  --key-file FILE            the connector's private JWK (private_key_jwt) instead of a secret",
      "  --trucks FILE              the trucks and the rule (default: examples/carrier/trucks.json)",
      "  --state FILE               its records (default: .data/java-carrier-state.json)",
      "  --exit-after-outcomes N    stop after reporting N outcomes",
      "  -h, --help                 this text");

  /** This connector's system, in the external references of its offers and trips. */
  private static final String SYSTEM = "example-carrier";
  /** Offers that still take matches; a truck whose offer has ended is offered again. */
  private static final List<String> OPEN_OFFER = List.of("draft", "published", "partiallyMatched");

  private final ObjectMapper json = new ObjectMapper();
  private final PcxClient pcx;
  private final JsonNode scenario;
  private final ObjectNode records;
  private final JsonNode reporting;
  private final Path statePath;
  private final ObjectNode state;
  private int reportedThisRun;
  /** Set before an exit of the program's own (System.exit runs the shutdown hook too). */
  private static volatile boolean exitingOnItsOwn;

  private static void log(String text) {
    System.out.println("[carrier] " + text);
    System.out.flush();
  }

  private CarrierConnector(PcxClient pcx, JsonNode scenario, ObjectNode records, Path statePath) throws IOException {
    this.pcx = pcx;
    this.scenario = scenario;
    this.records = records;
    this.statePath = statePath;
    JsonNode report = step("reportExecution");
    this.reporting = report != null ? report : json.createObjectNode().put("outcome", "completed");
    if (Files.exists(statePath)) {
      state = (ObjectNode) json.readTree(statePath.toFile());
      if (!state.has("offerRequests")) state.putObject("offerRequests"); // a state file from before it was kept
    } else {
      state = json.createObjectNode();
      for (String member : new String[] {"offers", "offerKeys", "offerRequests", "accepted", "tenders", "trips", "outcomes", "versions"}) state.putObject(member);
      state.putArray("appliedIds");
    }
  }

  private JsonNode step(String action) {
    if (scenario == null) return null;
    for (JsonNode s : scenario.path("steps")) if (action.equals(s.path("action").asText())) return s;
    return null;
  }

  /** The scenario as this connector's own records: its truck, and a rule that accepts the partner it names. */
  private static ObjectNode recordsOf(JsonNode scenario) {
    ObjectNode records = JsonNodeFactory.instance.objectNode();
    records.put("carrier", scenario.path("organizationId").asText());
    ObjectNode rule = records.putObject("rule");
    rule.put("minimumScore", 0);
    ArrayNode partners = rule.putArray("partners");
    ArrayNode trucks = records.putArray("trucks");
    for (JsonNode s : scenario.path("steps")) {
      if ("acceptProposals".equals(s.path("action").asText()) && s.hasNonNull("from")) partners.add(s.get("from").asText());
      if ("publishCapacity".equals(s.path("action").asText())) {
        ObjectNode truck = ((ObjectNode) s.deepCopy());
        truck.remove("action");
        truck.put("truckId", "SCENARIO-1").put("plate", "KIT 1");
        trucks.add(truck);
      }
    }
    return records;
  }

  /** Written whole to a temporary file and renamed: never half-written. */
  private synchronized void save() {
    try {
      if (statePath.getParent() != null) Files.createDirectories(statePath.getParent());
      Path tmp = statePath.resolveSibling(statePath.getFileName() + ".tmp");
      json.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), state);
      Files.move(tmp, statePath, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private ObjectNode map(String name) { return (ObjectNode) state.get(name); }

  private static String hoursFromNow(double hours) {
    return Instant.now().plusMillis((long) (hours * 3_600_000)).truncatedTo(ChronoUnit.SECONDS).toString();
  }

  private static String newKey(String prefix) { return prefix + "-" + UUID.randomUUID(); }

  // --- 1. publishing -------------------------------------------------------------------------

  private void publishTrucks() {
    String carrier = records.path("carrier").asText();
    // Reconciled with the broker first: an open offer of ours that the state does not hold is
    // withdrawn, so that no partner is matched with a truck this connector does not follow.
    Set<String> known = new HashSet<>();
    map("offers").elements().forEachRemaining(v -> known.add(v.asText()));
    Map<String, Object> query = new LinkedHashMap<>();
    query.put("owner", carrier);
    query.put("status", OPEN_OFFER);
    for (JsonNode offer : pcx.list("capacity-offers", query)) {
      boolean ours = false;
      for (JsonNode ref : offer.path("externalReferences")) ours |= SYSTEM.equals(ref.path("system").asText());
      if (known.contains(offer.path("id").asText()) || !ours) continue;
      // A draft is never matched, and may be the one a kept Idempotency-Key is about to find.
      if ("draft".equals(offer.path("status").asText())) continue;
      pcx.command("capacity-offers", "withdraw", offer, Map.of("reason", "not in the carrier system any more"), Call.redecide());
      log("withdrew offer " + offer.path("id").asText() + ": an offer of ours this connector has no record of");
    }
    for (JsonNode truck : records.path("trucks")) {
      String truckId = truck.path("truckId").asText();
      String current = map("offers").path(truckId).asText(null);
      if (current != null) {
        JsonNode offer = pcx.get("capacity-offers", current);
        String status = offer.path("status").asText();
        if (OPEN_OFFER.contains(status)) {
          if ("draft".equals(status)) pcx.command("capacity-offers", "publish", offer, null, Call.redecide());
          continue;
        }
        log("truck " + truckId + ": offer " + current + " is " + status + "; offering the truck again");
        map("offerKeys").remove(truckId);
        map("offerRequests").remove(truckId);
      }
      // The key and the request are kept before the call: a crash between the create and the save
      // below makes the next start send the same request with the same key, which the broker
      // answers with the offer it made (the request's times are computed from now, and a key sent
      // again with another body is refused 409 IDEMPOTENCY_CONFLICT).
      if (!map("offerKeys").hasNonNull(truckId)) map("offerKeys").put(truckId, newKey("offer-" + truckId));
      String key = map("offerKeys").get(truckId).asText();
      if (!map("offerRequests").hasNonNull(truckId)) map("offerRequests").set(truckId, offerRequest(truck));
      JsonNode body = map("offerRequests").get(truckId);
      save();
      JsonNode offer = pcx.create("capacity-offers", body, Call.key(key));
      // Recorded before it is published: a publish refused now (no active partnership yet) is
      // tried again by the next start, on this offer.
      map("offers").put(truckId, offer.path("id").asText());
      save();
      JsonNode published = "draft".equals(offer.path("status").asText()) ? pcx.command("capacity-offers", "publish", offer, null, Call.redecide()) : offer;
      log("truck " + truckId + " (" + truck.path("plate").asText() + ") offered as " + published.path("id").asText() + ": " + published.path("status").asText());
    }
  }

  /** The create of a truck's offer, as it is kept with its Idempotency-Key. */
  private ObjectNode offerRequest(JsonNode truck) {
    String truckId = truck.path("truckId").asText();
    ObjectNode body = json.createObjectNode();
    double in = truck.path("availableInHours").asDouble();
    ObjectNode window = body.putObject("availabilityWindow");
    window.put("start", hoursFromNow(in)).put("end", hoursFromNow(in + truck.path("availableForHours").asDouble())).put("timeZone", "Europe/Berlin");
    body.putObject("originArea").put("kind", "unlocode").put("code", truck.path("origin").asText());
    body.set("destinationArea", truck.path("destination"));
    body.putObject("vehicleProfile").put("bodyType", truck.path("bodyType").asText());
    ObjectNode capacity = body.putObject("availableCapacity");
    capacity.putObject("weight").put("value", truck.path("tonnes").asDouble()).put("unitCode", "TNE");
    capacity.put("palletSpaces", truck.path("palletSpaces").asInt());
    body.put("expiresAt", hoursFromNow(Math.max(1, in - 4)));
    ObjectNode visibility = body.putObject("visibility");
    visibility.put("mode", "partners");
    visibility.set("organizationIds", truck.has("partners") ? truck.get("partners") : records.path("rule").path("partners"));
    body.putArray("externalReferences").addObject().put("system", SYSTEM).put("type", "truck").put("value", truckId);
    body.putObject("restrictedDetails").set("price", truck.path("price"));
    return body;
  }

  // --- 2. the feed's delivery rules, kept in the state file ----------------------------------

  private final AppliedStore applied = new AppliedStore() {
    @Override public boolean hasEvent(String id) {
      for (JsonNode known : state.path("appliedIds")) if (known.asText().equals(id)) return true;
      return false;
    }

    @Override public OptionalLong appliedVersion(String subject) {
      JsonNode v = state.path("versions").get(subject);
      return v == null ? OptionalLong.empty() : OptionalLong.of(v.asLong());
    }

    @Override public void record(String id, String subject, long resourceVersion) {
      ArrayNode ids = (ArrayNode) state.get("appliedIds");
      while (ids.size() >= 1000) ids.remove(0);
      ids.add(id);
      map("versions").put(subject, Math.max(map("versions").path(subject).asLong(0), resourceVersion));
      save();
    }
  };

  // --- 3. proposals ----------------------------------------------------------------------------

  private String truckOfOffer(String offerId) {
    for (Iterator<Map.Entry<String, JsonNode>> it = map("offers").fields(); it.hasNext();) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue().asText().equals(offerId)) return e.getKey();
    }
    return null;
  }

  private void onProposal(String id) throws ApiException {
    // Read through the generated API on the guarded HttpClient: a generated model comes back.
    MatchProposal proposal = pcx.api(MatchProposalsApi.class).getMatchProposal(UUID.fromString(id), null);
    String carrier = records.path("carrier").asText();
    String truckId = truckOfOffer(String.valueOf(proposal.getCapacityOfferId()));
    if (truckId == null) {
      log("proposal " + id + " is not for one of our trucks' offers: left to a person");
      return;
    }
    List<MatchProposalMatchDecision> decisions = proposal.getDecisions() == null ? List.of() : proposal.getDecisions();
    if (proposal.getStatus() != MatchProposal.StatusEnum.OPEN) {
      // Decided before a crash that came before our record of it: record it now.
      boolean ours = decisions.stream().anyMatch(d -> carrier.equals(d.getOrganizationId()) && d.getDecision() == MatchProposalMatchDecision.DecisionEnum.ACCEPT);
      if (ours && proposal.getStatus() == MatchProposal.StatusEnum.ACCEPTED && !map("accepted").has(id)) {
        map("accepted").put(id, truckId);
        save();
      }
      log("proposal " + id + " is " + proposal.getStatus() + " already");
      return;
    }
    if (decisions.stream().anyMatch(d -> carrier.equals(d.getOrganizationId()))) {
      log("proposal " + id + ": decided by us already");
      return;
    }
    String partner = proposal.getRequestOwnerOrganizationId();
    double score = proposal.getScore() == null ? 0 : proposal.getScore().doubleValue();
    double minimum = records.path("rule").path("minimumScore").asDouble();
    List<String> reasons = new ArrayList<>();
    boolean isPartner = false;
    for (JsonNode p : records.path("rule").path("partners")) isPartner |= p.asText().equals(partner);
    if (!isPartner) reasons.add(partner + " is not a partner we take loads from");
    if (score < minimum) reasons.add("score " + score + " is below our minimum " + minimum);
    boolean accept = reasons.isEmpty();
    String summary = proposal.getRationale() != null && proposal.getRationale().getSummary() != null ? proposal.getRationale().getSummary() : "no summary";
    String why = accept ? "score " + score + " >= " + minimum + ", " + partner + " is a partner we take loads from; broker: " + summary : String.join("; ", reasons);
    MatchProposalDecisionRequest decision = new MatchProposalDecisionRequest()
        .decision(accept ? MatchProposalDecisionRequest.DecisionEnum.ACCEPT : MatchProposalDecisionRequest.DecisionEnum.REJECT)
        .comment(why);
    try {
      // Safe to decide again on a newer version: the rule looks at the pair, not at the version.
      pcx.command("match-proposals", "decisions", proposal, decision, Call.redecide());
    } catch (PcxProblem problem) {
      if (problem.is("DECISION_TERMINAL") || problem.is("INVALID_STATE_TRANSITION")) {
        log("proposal " + id + " was decided already: " + problem.getMessage());
        return;
      }
      throw problem;
    }
    // Said before it is recorded: whoever reads the state file and sees the decision has its reason in the log.
    log((accept ? "accepted" : "rejected") + " proposal " + id + " for truck " + truckId + ": " + why);
    if (accept) map("accepted").put(id, truckId);
    save();
  }

  // --- 4. tenders ------------------------------------------------------------------------------

  private void onTender(String id) {
    TransportTender tender = pcx.get("transport-tenders", id, TransportTender.class);
    String origin = tender.getOriginatingProposalId() == null ? null : tender.getOriginatingProposalId().toString();
    // A tender of ours names the proposal it came from (a tender without one is not for this connector).
    if (!records.path("carrier").asText().equals(tender.getExecutingOrganizationId()) || origin == null || !map("accepted").has(origin)) return;
    JsonNode acceptTenders = step("acceptTenders");
    if (scenario != null && (acceptTenders == null || !acceptTenders.path("from").asText().equals(tender.getIssuingOrganizationId()))) {
      log("tender " + id + ": the scenario asks for no accept of it");
      return;
    }
    int revision = tender.getCurrentRevision();
    if ((map("tenders").has(id) && map("tenders").get(id).asInt() == revision) || tender.getStatus() != TransportTender.StatusEnum.ISSUED) return;
    TransportTenderDecisionRequest decision = new TransportTenderDecisionRequest().decision(TransportTenderDecisionRequest.DecisionEnum.ACCEPT).revision(revision);
    pcx.command("transport-tenders", "decisions", tender, decision, Call.redecide());
    map("tenders").put(id, revision);
    save();
    log("accepted tender " + id + " revision " + revision + " (for proposal " + origin + ", which we accepted)");
  }

  // --- 5. handovers, the trip and its outcome --------------------------------------------------

  private void onHandover(String id) throws ApiException {
    ExecutionHandover handover = pcx.api(ExecutionHandoversApi.class).getExecutionHandover(UUID.fromString(id), null);
    if (!records.path("carrier").asText().equals(handover.getExecutingOrganizationId())) return;
    TransportTender tender = pcx.get("transport-tenders", handover.getTenderId().toString(), TransportTender.class);
    String origin = tender.getOriginatingProposalId() == null ? null : tender.getOriginatingProposalId().toString();
    String truckId = origin == null ? null : map("accepted").path(origin).asText(null);
    if (truckId == null) {
      log("handover " + id + " is for a match we did not make here: left to a person");
      return;
    }
    // Each step is recorded before the next and is idempotent at the broker (the acknowledgement
    // by its Idempotency-Key, milestones and the outcome by their deduplication keys), so a crash
    // anywhere here makes the next start (which gets this event again) finish what is missing.
    String trip = map("trips").path(id).asText(null);
    if (trip == null) {
      trip = "TRIP-" + id.substring(id.length() - 8);
      ObjectNode ack = json.createObjectNode();
      ack.put("outcome", "imported");
      ack.putObject("destinationExternalReference").put("system", SYSTEM).put("type", "trip").put("value", trip);
      pcx.request("POST", "/execution-handovers/{id}/acknowledgements", Map.of("id", id), null, ack, Call.key("ack-" + id));
      map("trips").put(id, trip);
      save();
      log("imported handover " + id + " as trip " + trip + " for truck " + truckId);
    }
    String reference = handover.getExecutionReferenceId() != null ? handover.getExecutionReferenceId().toString() : referenceOf(origin);
    if (map("outcomes").has(reference)) return;
    reportTrip(reference, trip);
    // The trip is done: the truck is free again; what was left of its offer is withdrawn.
    String offerId = tender.getCapacityOfferId() == null ? null : tender.getCapacityOfferId().toString();
    if (offerId != null && offerId.equals(map("offers").path(truckId).asText(null))) {
      JsonNode offer = pcx.get("capacity-offers", offerId);
      String status = offer.path("status").asText();
      if (OPEN_OFFER.contains(status) && !"draft".equals(status)) {
        pcx.command("capacity-offers", "withdraw", offer, Map.of("reason", "truck " + truckId + " left on trip " + trip), Call.redecide());
        log("withdrew what was left of offer " + offerId + ": truck " + truckId + " left on trip " + trip);
      }
      map("offers").remove(truckId);
      map("offerKeys").remove(truckId);
      map("offerRequests").remove(truckId);
      save();
    }
  }

  private String referenceOf(String proposalId) {
    for (JsonNode reference : pcx.list("execution-references", Map.of("proposal", proposalId))) return reference.path("id").asText();
    throw new IllegalStateException("no execution reference for proposal " + proposalId);
  }

  /** The trip as the TMS would report it: picked up, delivered, then the outcome (deduplicated by key). */
  private void reportTrip(String reference, String trip) {
    // The times are the facts as they happen: the exchange refuses a time ahead of its clock.
    Map<String, String> times = new LinkedHashMap<>();
    for (String milestone : new String[] {"pickedUp", "delivered"}) {
      times.put(milestone, hoursFromNow(0));
      ObjectNode update = json.createObjectNode();
      update.put("executionReferenceId", reference).put("milestone", milestone).put("occurredAt", times.get(milestone)).put("deduplicationKey", trip + "-" + milestone);
      pcx.request("POST", "/execution-updates", null, null, update, Call.defaults());
      log("trip " + trip + ": " + milestone);
    }
    ObjectNode range = json.createObjectNode().put("start", times.get("pickedUp")).put("end", times.get("delivered"));
    ObjectNode body = json.createObjectNode();
    body.put("executionReferenceId", reference).put("status", reporting.path("outcome").asText("completed")).put("deduplicationKey", trip + "-outcome").put("schemaVersion", "v0");
    body.set("actualTimeRange", range);
    // One call: its retries (the kit answers the first with 503) carry the same body, so the same
    // deduplicationKey, and the same Idempotency-Key.
    JsonNode outcome = pcx.request("POST", "/execution-outcomes", null, null, body, Call.defaults());
    log("trip " + trip + ": outcome " + outcome.path("id").asText() + " " + outcome.path("status").asText() + " for execution reference " + reference);
    JsonNode correction = reporting.get("correction");
    if (correction != null && correction.isObject()) {
      // A correction of the head on the version read, never a second outcome (the chain is append-only).
      ObjectNode fix = json.createObjectNode();
      fix.put("observedOutcomeVersion", outcome.path("resourceVersion").asLong());
      fix.put("correctionReason", correction.path("reason").asText()).put("correctionReasonCode", correction.path("reasonCode").asText());
      fix.put("status", correction.path("status").asText()).put("deduplicationKey", trip + "-correction").put("schemaVersion", "v0");
      fix.set("actualTimeRange", range);
      JsonNode corrected = pcx.request("POST", "/execution-outcomes/{id}/corrections", Map.of("id", outcome.path("id").asText()), null, fix, Call.defaults());
      log("trip " + trip + ": outcome corrected to " + corrected.path("status").asText() + " (" + corrected.path("id").asText() + "): " + correction.path("reason").asText());
    }
    map("outcomes").put(reference, outcome.path("id").asText());
    save();
    reportedThisRun++;
  }

  private void handle(JsonNode event) throws ApiException {
    String[] subject = event.path("subject").asText().split("/", 2);
    if (subject.length < 2) return;
    String kind = subject[0];
    String id = subject[1];
    String type = event.path("type").asText();
    if (type.equals("pcx.match-proposal.created.v1")) onProposal(id);
    else if (type.equals("pcx.transport-tender.issued.v1") || type.equals("pcx.transport-tender.countered.v1")) onTender(id);
    else if (type.equals("pcx.execution-handover.offered.v1") && kind.equals("execution-handovers")) onHandover(id);
  }

  private void run(Integer exitAfter, EventFeed feed) throws Exception {
    // First start: the feed from its end, taken before publishing, so that no proposal for our
    // offers can come before our place in it (what was before is another system's past).
    boolean resumed = state.hasNonNull("cursor");
    if (!resumed) feed.skipToEnd();
    publishTrucks();
    log("following the feed" + (resumed ? " from where it stopped" : " from now"));
    feed.follow(this::handle, true, () -> exitAfter != null && reportedThisRun >= exitAfter);
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new LinkedHashMap<>();
    args.put("base-url", System.getenv().getOrDefault("PCX_BASE_URL", "http://localhost:8080"));
    args.put("client-id", System.getenv().getOrDefault("PCX_CLIENT_ID", "alpine-tms"));
    args.put("trucks", "examples/carrier/trucks.json");
    args.put("state", null);
    args.put("key-file", null);
    args.put("exit-after-outcomes", null);
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      if (a.equals("-h") || a.equals("--help")) {
        System.out.println(USAGE);
        System.exit(0);
      }
      String name = a.startsWith("--") ? a.substring(2) : null;
      String value = null;
      if (name != null && name.contains("=")) {
        value = name.substring(name.indexOf('=') + 1);
        name = name.substring(0, name.indexOf('='));
      } else if (name != null && i + 1 < argv.length) {
        value = argv[++i];
      }
      if (name == null || !args.containsKey(name) || value == null) {
        System.err.println("Unknown or incomplete option '" + a + "'\n\n" + USAGE);
        System.exit(2);
      }
      args.put(name, value);
    }
    String scenarioFile = System.getenv("PCX_SCENARIO");
    ObjectMapper json = new ObjectMapper();
    JsonNode scenario = scenarioFile == null ? null : json.readTree(Path.of(scenarioFile).toFile());
    ObjectNode records = scenario != null ? recordsOf(scenario) : (ObjectNode) json.readTree(Path.of(args.get("trucks")).toFile());
    Path statePath = args.get("state") != null ? Path.of(args.get("state"))
        : scenarioFile != null ? Path.of(scenarioFile).toAbsolutePath().resolveSibling("carrier-state.json")
        : Path.of(".data", "java-carrier-state.json");

    PcxClient.Builder builder = PcxClient.builder(args.get("base-url")).clientId(args.get("client-id")).userAgent("example-carrier-java/0.1")
        .onRetry((method, path, attempt, delayMs, reason, key) ->
            log("retry " + attempt + " of " + method + " " + path + " in " + delayMs + " ms (" + reason + ")" + (key == null ? "" : ", Idempotency-Key " + key)));
    if (args.get("key-file") != null) builder.privateKey(PrivateJwk.read(Path.of(args.get("key-file"))));
    else {
      String secret = System.getenv("PCX_CLIENT_SECRET");
      if (secret == null || secret.isEmpty()) {
        System.err.println("[carrier] PCX_CLIENT_SECRET is required (or --key-file)");
        System.exit(2);
      }
      builder.clientSecret(secret);
    }
    PcxClient pcx = builder.build();
    CarrierConnector connector = new CarrierConnector(pcx, scenario, records, statePath);
    EventFeed feed = pcx.events(connector.applied, new EventFeed.CursorStore() {
      @Override public String load() { return connector.state.path("cursor").asText(null); }
      @Override public void save(String cursor) {
        connector.state.put("cursor", cursor);
        connector.save();
      }
    }, 500);

    // SIGTERM/SIGINT: the JVM runs shutdown hooks; this one ends the feed loop, waits for the
    // event in hand (its step is recorded before the next), and exits 0 (a stop asked for is not a
    // failure; without halt the JVM would exit 143).
    Thread main = Thread.currentThread();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (exitingOnItsOwn) return;
      feed.stop();
      main.interrupt();
      try {
        main.join(5000);
      } catch (InterruptedException ignored) {
        // exiting anyway
      }
      log("stopped");
      System.out.flush();
      Runtime.getRuntime().halt(0);
    }, "pcx-stop"));
    Integer exitAfter = args.get("exit-after-outcomes") == null ? null : Integer.valueOf(args.get("exit-after-outcomes"));
    try {
      connector.run(exitAfter, feed);
    } catch (Exception e) {
      if (feed.stopped()) return;
      System.err.println("[carrier] failed: " + e);
      e.printStackTrace();
      exitingOnItsOwn = true;
      System.exit(1);
    }
    if (!feed.stopped()) log("stopped");
    exitingOnItsOwn = true;
    System.exit(0);
  }
}
