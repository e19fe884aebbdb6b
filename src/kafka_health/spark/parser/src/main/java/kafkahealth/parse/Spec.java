package kafkahealth.parse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The parse's table and settings as the Python side writes them from the checkout
 * ({@code kafka_health.parsing.udf_spec}: the patterns of {@code parsing.patterns}, the
 * prefilter's texts, the line shapes, the envelope's paths and the configuration), compiled
 * once per JVM for each distinct table. Nothing of the table is written in Java.
 */
public final class Spec {
    /** The table format this jar reads; the Python side writes the same number. */
    public static final int VERSION = 1;

    /** One pattern of the table, compiled. */
    static final class PatternSpec {
        final int index;
        final String name, event, family;
        final boolean entryScope;
        final Pattern regex, trigger;
        /** The texts one of which a line holds for the regex or trigger to match (none: any). */
        final String[] anchors;
        final String[] groupNames;
        final int[] groupIndexes;
        final String collector;
        final boolean leaderIsSelf;

        PatternSpec(int index, JsonNode n, boolean leaderIsSelf) {
            this.index = index;
            name = n.get("name").asText();
            event = n.get("event").asText();
            family = n.get("family").asText();
            entryScope = "entry".equals(n.get("scope").asText());
            regex = Pattern.compile(n.get("regex").asText());
            trigger = Pattern.compile(n.get("trigger").asText());
            anchors = strings(n.get("anchors"));
            List<String> names = new ArrayList<>();
            List<Integer> indexes = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = n.get("groups").fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                names.add(e.getKey());
                indexes.add(e.getValue().asInt());
            }
            groupNames = names.toArray(new String[0]);
            groupIndexes = indexes.stream().mapToInt(Integer::intValue).toArray();
            collector = n.hasNonNull("collector") ? n.get("collector").asText() : null;
            this.leaderIsSelf = leaderIsSelf;
        }
    }

    /** One family's prefilter (parsing.prefilter.FamilyPrefilter). */
    static final class Gate {
        final String family;
        final String[] searched, words, gated;

        Gate(String family, JsonNode n) {
            this.family = family;
            searched = strings(n.get("searched"));
            words = strings(n.get("words"));
            gated = strings(n.get("gated"));
        }
    }

    /** One output field of the event: a group's text converted, or one Java composes. */
    static final class FieldSpec {
        final String name, how, group, conversion;

        FieldSpec(JsonNode n) {
            name = n.get(0).asText();
            how = n.get(1).asText();
            group = n.get(2).isNull() ? null : n.get(2).asText();
            conversion = n.get(3).isNull() ? null : n.get(3).asText();
        }
    }

    final boolean keepMessage, lettersOnly;
    final String kind, recordKey;
    final java.time.ZoneId sessionZone, logZone;
    final int maxEntryBytes, scanChars;
    final String[] messagePaths, brokerPaths, hostPaths, filePaths, kindPaths;
    final String preEcsFile, preEcsHost;
    final Map<String, Integer> docIndex = new HashMap<>();
    final int docKeys;
    /** The envelope's keys read in one pass where it is flat and ASCII ({@link FlatJson}). */
    final FlatJson flatJson;
    final String[] logKinds, kafkaKinds;
    final int brokerIdMaxDigits;
    final Map<String, String[][]> layout = new HashMap<>();
    /** {@link #binary} as a table of bytes, when it is one (null: the regex decides). */
    final ByteClass binaryBytes;
    final Pattern binary, kindFromFile, epochDigits, entryStart, continuation, gcLine, log4jLine,
            timestamp, log4jDate, level, lineBroker, uptimeUnified, uptimeJdk8, defaultLayoutStamp;
    final String[] gcLineTexts, defaultLayoutLevels;
    final int defaultLayoutLevelAt;
    final Map<String, String> youngGenCollector = new HashMap<>();
    final PatternSpec[] patterns;
    final Gate[] gates;
    /** The gates' one-pass scans (null where a gate keeps the text-by-text search). */
    final GateScan[] gateScans;
    final Pattern anyTrigger;
    final FieldSpec[] eventFields;
    final Map<String, Integer> fieldIndex = new LinkedHashMap<>();
    /** The composed broker_id field's index (-1: none), the one field an entry that matched no
     * pattern has. */
    final int brokerField;

    private static final ConcurrentHashMap<String, Spec> COMPILED = new ConcurrentHashMap<>();

    /** The spec of {@code json}, compiled once per JVM. */
    static Spec of(String json) {
        return COMPILED.computeIfAbsent(json, Spec::new);
    }

    private Spec(String json) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("the parser spec is not JSON", e);
        }
        int version = root.get("version").asInt();
        if (version != VERSION) {
            throw new IllegalArgumentException(
                    "parser spec version " + version + ", this jar reads " + VERSION);
        }
        JsonNode o = root.get("options");
        keepMessage = o.get("keep_message").asBoolean();
        lettersOnly = o.get("letters_only").asBoolean();
        kind = o.get("kind").asText();
        sessionZone = java.time.ZoneId.of(o.get("session_tz").asText());
        JsonNode c = root.get("config");
        recordKey = c.get("record_key").asText();
        maxEntryBytes = c.get("max_entry_bytes").asInt();
        scanChars = c.get("scan_chars").asInt();
        logZone = java.time.ZoneId.of(c.get("log_timezone").asText());
        JsonNode f = root.get("fields_paths");
        messagePaths = strings(f.get("message"));
        brokerPaths = strings(f.get("broker_id"));
        hostPaths = strings(f.get("host"));
        filePaths = strings(f.get("file"));
        kindPaths = strings(f.get("kind"));
        preEcsFile = root.get("pre_ecs_beats").get("file").asText();
        preEcsHost = root.get("pre_ecs_beats").get("host").asText();
        String[] keys = strings(root.get("doc_keys"));
        for (int i = 0; i < keys.length; i++) {
            docIndex.put(keys[i], i);
        }
        docKeys = keys.length;
        flatJson = new FlatJson(docIndex);
        logKinds = strings(root.get("log_kinds"));
        kafkaKinds = strings(root.get("kafka_kinds"));
        brokerIdMaxDigits = root.get("broker_id_max").asText().length();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.get("layout").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            String[][] paths = new String[e.getValue().size()][];
            for (int i = 0; i < paths.length; i++) {
                paths[i] = strings(e.getValue().get(i));
            }
            layout.put(e.getKey(), paths);
        }
        JsonNode s = root.get("shapes");
        binary = shape(s, "BINARY");
        binaryBytes = ByteClass.of(binary);
        kindFromFile = shape(s, "KIND_FROM_FILE");
        epochDigits = shape(s, "EPOCH_DIGITS");
        entryStart = shape(s, "ENTRY_START");
        continuation = shape(s, "CONTINUATION");
        gcLine = shape(s, "GC_LINE");
        log4jLine = shape(s, "LOG4J_LINE");
        timestamp = shape(s, "TIMESTAMP");
        log4jDate = shape(s, "LOG4J_DATE");
        level = shape(s, "LEVEL");
        lineBroker = shape(s, "LINE_BROKER");
        uptimeUnified = shape(s, "UPTIME_UNIFIED");
        uptimeJdk8 = shape(s, "UPTIME_JDK8");
        defaultLayoutStamp = shape(s, "DEFAULT_LAYOUT_STAMP");
        gcLineTexts = strings(root.get("gc_line_texts"));
        defaultLayoutLevels = strings(root.get("default_layout_levels"));
        defaultLayoutLevelAt = root.get("default_layout_level_at").asInt();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.get("young_gen_collector").fields();
                it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            youngGenCollector.put(e.getKey(), e.getValue().asText());
        }
        java.util.Set<String> self = new java.util.HashSet<>(
                java.util.Arrays.asList(strings(root.get("leader_is_self"))));
        JsonNode ps = root.get("patterns");
        patterns = new PatternSpec[ps.size()];
        for (int i = 0; i < patterns.length; i++) {
            String name = ps.get(i).get("name").asText();
            patterns[i] = new PatternSpec(i, ps.get(i), self.contains(name));
        }
        JsonNode g = root.get("gates");
        if (g == null || g.isNull()) {
            gates = null;
            gateScans = new GateScan[0];
            anyTrigger = Pattern.compile(root.get("any_trigger").asText());
        } else {
            List<Gate> list = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = g.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                list.add(new Gate(e.getKey(), e.getValue()));
            }
            gates = list.toArray(new Gate[0]);
            gateScans = new GateScan[gates.length];
            for (int i = 0; i < gates.length; i++) {
                gateScans[i] = GateScan.of(gates[i]);
            }
            anyTrigger = null;
        }
        JsonNode ef = root.get("event_fields");
        eventFields = new FieldSpec[ef.size()];
        for (int i = 0; i < eventFields.length; i++) {
            eventFields[i] = new FieldSpec(ef.get(i));
            fieldIndex.put(eventFields[i].name, i);
        }
        Integer broker = fieldIndex.get("broker_id");
        brokerField = broker != null && !"simple".equals(eventFields[broker].how) ? broker : -1;
    }

    private static Pattern shape(JsonNode shapes, String name) {
        JsonNode n = shapes.get(name);
        if (n == null) {
            throw new IllegalArgumentException("parser spec: no shape " + name);
        }
        return Pattern.compile(n.asText());
    }

    static String[] strings(JsonNode n) {
        if (n == null || n.isNull()) {
            return new String[0];
        }
        String[] out = new String[n.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = n.get(i).asText();
        }
        return out;
    }

    /**
     * What the jar finds wrong with {@code json} (empty when nothing): each regex compiled by
     * java.util.regex with the number of groups Python's re counted, every named group at the
     * number Python gives it, every event field one this jar composes or converts. For the
     * Python side to check at registration, on the driver.
     */
    public static String check(String json) {
        List<String> problems = new ArrayList<>();
        Spec spec;
        try {
            spec = new Spec(json);
        } catch (RuntimeException e) {
            return "cannot read the spec: " + e;
        }
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(json);
        } catch (IOException e) {
            return "not JSON";
        }
        JsonNode ps = root.get("patterns");
        for (int i = 0; i < spec.patterns.length; i++) {
            PatternSpec p = spec.patterns[i];
            int want = ps.get(i).get("group_count").asInt();
            int got = p.regex.matcher("").groupCount();
            if (got != want) {
                problems.add(p.name + ": Java counts " + got + " groups, Python " + want);
            }
            for (int k = 0; k < p.groupIndexes.length; k++) {
                if (p.groupIndexes[k] < 1 || p.groupIndexes[k] > got) {
                    problems.add(p.name + ": group " + p.groupNames[k] + " out of range");
                }
            }
        }
        for (FieldSpec f : spec.eventFields) {
            boolean known = "simple".equals(f.how)
                    ? EventFields.CONVERSIONS.contains(f.conversion)
                    : EventFields.COMPOSED.contains(f.name);
            if (!known) {
                problems.add("event field " + f.name + " (" + f.how + ", " + f.conversion
                        + "): this jar does not make it");
            }
        }
        return String.join("\n", problems);
    }
}
