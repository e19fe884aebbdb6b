package kafkahealth.parse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One micro-batch of the monitor's topics -> the driver's rows (kafka_health.job.batch
 * .driver_rows): each task decodes and parses its broker-log records as {@link ParseUdf} does
 * and tallies every record by (tag, outcome, reason, type, broker id, log kind) in a hash map,
 * listing in its group each record the driver reads (an event of a detected type as the JSON
 * of its columns, a canary outcome or cluster-state record as it was written) with its
 * partition and offset. The tasks' tallies are merged on the driver in partition order and
 * handed to Python as one JSON text.
 */
public final class BatchTally
        implements FlatMapFunction<Iterator<InternalRow>, BatchTally.Group>, Serializable {
    private static final long serialVersionUID = 1L;
    /** The source columns read, in this order. */
    static final String[] COLUMNS = {"key", "value", "topic", "partition", "offset", "timestamp"};

    private final String specJson;
    private final String settingsJson;
    private transient Settings settings;
    private transient RecordDecoder decoder;
    private transient EntryParser parser;
    private transient Spec spec;
    /** Where each event column comes from: a field's index in the parse, or TYPE, EVENT_MS. */
    private transient int[] eventSources;
    private transient int brokerIndex;
    private static final int TYPE = -1, EVENT_MS = -2, ABSENT = -3;

    public BatchTally(String specJson, String settingsJson) {
        this.specJson = specJson;
        this.settingsJson = settingsJson;
        init();
    }

    private void init() {
        spec = Spec.of(specJson);
        decoder = new RecordDecoder(spec);
        parser = new EntryParser(spec);
        settings = new Settings(settingsJson);
        brokerIndex = spec.fieldIndex.get("broker_id");
        eventSources = new int[settings.eventNames.length];
        for (int i = 0; i < eventSources.length; i++) {
            String name = settings.eventNames[i];
            Integer field = spec.fieldIndex.get(name);
            eventSources[i] = name.equals("type") ? TYPE : name.equals("event_ms") ? EVENT_MS
                    : field == null ? ABSENT : field;
        }
    }

    /** The job's side (kafka_health.job.batch.tally_settings): its topics, what it lists. */
    static final class Settings {
        final UTF8String logs;
        final Map<UTF8String, String> own = new HashMap<>();
        final int ownMaxBytes;
        final Set<String> detected = new HashSet<>();
        final Set<String> letterReasons = new HashSet<>();
        final boolean letterMalformed;
        final String[] eventNames;

        Settings(String json) {
            JsonNode o;
            try {
                o = new ObjectMapper().readTree(json);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            logs = UTF8String.fromString(o.get("logs_topic").asText());
            o.get("own_topics").fields().forEachRemaining(
                    f -> own.put(UTF8String.fromString(f.getKey()), f.getValue().asText()));
            ownMaxBytes = o.get("own_max_bytes").asInt();
            o.get("detected_types").forEach(t -> detected.add(t.asText()));
            o.get("letter_reasons").forEach(t -> letterReasons.add(t.asText()));
            letterMalformed = o.get("letter_malformed").asBoolean();
            JsonNode names = o.get("event_columns");
            eventNames = new String[names.size()];
            for (int i = 0; i < names.size(); i++) {
                eventNames[i] = names.get(i).asText();
            }
        }
    }

    /** A group's key. */
    static final class Key implements Serializable {
        private static final long serialVersionUID = 1L;
        String tag, outcome, reason, type, broker, kind;
        int hash;

        Key set(String tag, String outcome, String reason, String type, String broker,
                String kind) {
            this.tag = tag;
            this.outcome = outcome;
            this.reason = reason;
            this.type = type;
            this.broker = broker;
            this.kind = kind;
            int h = Objects.hashCode(tag);
            h = 31 * h + Objects.hashCode(outcome);
            h = 31 * h + Objects.hashCode(reason);
            h = 31 * h + Objects.hashCode(type);
            h = 31 * h + Objects.hashCode(broker);
            hash = 31 * h + Objects.hashCode(kind);
            return this;
        }

        Key copy() {
            return new Key().set(tag, outcome, reason, type, broker, kind);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof Key)) {
                return false;
            }
            Key k = (Key) other;
            return hash == k.hash && Objects.equals(tag, k.tag)
                    && Objects.equals(outcome, k.outcome) && Objects.equals(reason, k.reason)
                    && Objects.equals(type, k.type) && Objects.equals(broker, k.broker)
                    && Objects.equals(kind, k.kind);
        }
    }

    /** One group's tally: its key, counts, listed records and newest shipping time. */
    public static final class Group implements Serializable {
        private static final long serialVersionUID = 1L;
        final Key key;
        long entries, lines, dead;
        Long shippedMs;
        final List<String> records = new ArrayList<>();

        Group(Key key) {
            this.key = key;
        }

        void merge(Group g) {
            entries += g.entries;
            lines += g.lines;
            dead += g.dead;
            if (g.shippedMs != null && (shippedMs == null || g.shippedMs > shippedMs)) {
                shippedMs = g.shippedMs;
            }
            records.addAll(g.records);
        }
    }

    @Override
    public Iterator<Group> call(Iterator<InternalRow> rows) {
        if (spec == null) {
            init();
        }
        Map<Key, Group> groups = new LinkedHashMap<>();
        Key probe = new Key();
        JsonFactory json = new JsonFactory();
        while (rows.hasNext()) {
            InternalRow r = rows.next();
            UTF8String topic = r.isNullAt(2) ? null : r.getUTF8String(2);
            byte[] value = r.isNullAt(1) ? null : r.getBinary(1);
            Long shipped = r.isNullAt(5) ? null : Math.floorDiv(r.getLong(5), 1000L);
            if (topic != null && topic.equals(settings.logs)) {
                byte[] key = r.isNullAt(0) ? null : r.getBinary(0);
                RecordDecoder.Entry e = decoder.decode(key, value);
                EntryParser.Parsed p = parser.parse(e, shipped);
                String broker = (String) p.fields[brokerIndex];
                boolean event = "event".equals(p.outcome) && settings.detected.contains(p.type);
                Group g = group(groups, probe.set(event ? "event" : null, p.outcome, p.reason,
                        p.type, broker, e.kind));
                g.entries++;
                g.lines += e.nLines;
                if ("unrecognised".equals(p.outcome) && settings.letterReasons.contains(p.reason)
                        || settings.letterMalformed && "malformed".equals(p.outcome)) {
                    g.dead++;
                }
                if (shipped != null && (g.shippedMs == null || shipped > g.shippedMs)) {
                    g.shippedMs = shipped;
                }
                if (event) {
                    g.records.add(listed(json, r, p, null));
                }
            } else {
                String tag = topic == null ? null : settings.own.get(topic);
                int size = value == null ? 0 : value.length;
                if (tag == null || size > settings.ownMaxBytes) {
                    continue;
                }
                Group g = group(groups, probe.set(tag, null, null, null, null, null));
                g.entries++;
                if (value != null) {
                    g.records.add(listed(json, r, null, value));
                }
            }
        }
        return new ArrayList<>(groups.values()).iterator();
    }

    private static Group group(Map<Key, Group> groups, Key probe) {
        Group g = groups.get(probe);
        if (g == null) {
            g = new Group(probe.copy());
            groups.put(g.key, g);
        }
        return g;
    }

    /**
     * A listed record as the JSON array [partition, offset, payload]: the payload is the
     * event {@code p}'s columns as an object (as Spark's to_json of their struct writes them,
     * null fields left out; so is a column the parse does not have: the driver's check of an
     * event, job.own_records.check_event, names what it lacks), or else {@code value} as text
     * (a canary outcome or cluster-state record, checked on the driver as it was written).
     */
    private String listed(JsonFactory json, InternalRow r, EntryParser.Parsed p, byte[] value) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator gen = json.createGenerator(out)) {
            gen.writeStartArray();
            if (r.isNullAt(3)) {
                gen.writeNull();
            } else {
                gen.writeNumber(r.getInt(3));
            }
            if (r.isNullAt(4)) {
                gen.writeNull();
            } else {
                gen.writeNumber(r.getLong(4));
            }
            if (p == null) {
                gen.writeString(new String(value, StandardCharsets.UTF_8));
            } else {
                writeEvent(gen, p);
            }
            gen.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private void writeEvent(JsonGenerator gen, EntryParser.Parsed p) throws IOException {
        gen.writeStartObject();
        for (int i = 0; i < eventSources.length; i++) {
            int from = eventSources[i];
            Object v = from == TYPE ? p.type : from == EVENT_MS ? p.eventMs
                    : from == ABSENT ? null : p.fields[from];
            if (v != null) {
                gen.writeFieldName(settings.eventNames[i]);
                write(gen, v);
            }
        }
        gen.writeEndObject();
    }

    private static void write(JsonGenerator gen, Object v) throws IOException {
        if (v instanceof String) {
            gen.writeString((String) v);
        } else if (v instanceof Integer) {
            gen.writeNumber((Integer) v);
        } else if (v instanceof Long) {
            gen.writeNumber((Long) v);
        } else if (v instanceof Double) {
            gen.writeNumber((Double) v);
        } else if (v instanceof Boolean) {
            gen.writeBoolean((Boolean) v);
        } else if (v instanceof Object[]) {
            gen.writeStartArray();
            for (Object x : (Object[]) v) {
                if (x == null) {
                    gen.writeNull();
                } else {
                    write(gen, x);
                }
            }
            gen.writeEndArray();
        } else {
            throw new IllegalArgumentException("an event field of type " + v.getClass());
        }
    }

    /**
     * The batch's groups: every task's tally merged in partition order, as JSON rows in UTF-8
     * written to {@code out} (a file the Python side reads and deletes: Py4J hands a string
     * or a byte array over a character or a byte at a time, 0.1-0.3 s for a backlog's batch).
     */
    public static void tally(Dataset<Row> records, String specJson, String settingsJson,
            String out) throws IOException {
        JavaRDD<InternalRow> rows = records.select(COLUMNS[0], java.util.Arrays.copyOfRange(
                COLUMNS, 1, COLUMNS.length)).queryExecution().toRdd().toJavaRDD();
        List<Group> parts = rows.mapPartitions(new BatchTally(specJson, settingsJson)).collect();
        Map<Key, Group> merged = new LinkedHashMap<>();
        for (Group g : parts) {
            Group into = merged.get(g.key);
            if (into == null) {
                merged.put(g.key, g);
            } else {
                into.merge(g);
            }
        }
        Files.write(Paths.get(out), rowsJson(merged.values()));
    }

    static byte[] rowsJson(Iterable<Group> groups) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);
        try (JsonGenerator gen = new JsonFactory().createGenerator(out)) {
            gen.writeStartArray();
            for (Group g : groups) {
                gen.writeStartArray();
                Key k = g.key;
                for (String s : new String[] {k.tag, k.outcome, k.reason, k.type, k.broker,
                        k.kind}) {
                    gen.writeString(s);
                }
                gen.writeNumber(g.entries);
                gen.writeNumber(g.lines); // an own record's group: 0, its lines not counted
                gen.writeNumber(g.dead);
                gen.writeStartArray();
                for (String s : g.records) {
                    gen.writeRawValue(s);
                }
                gen.writeEndArray();
                if (g.shippedMs == null) {
                    gen.writeNull();
                } else {
                    gen.writeNumber(g.shippedMs);
                }
                gen.writeEndArray();
            }
            gen.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
