package kafkahealth.parse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * parsing.fields.event_fields: the event fields of one entry, from the matched pattern's
 * groups and the entry's first line. A field is either a group's text converted
 * ({@link #CONVERSIONS}, named by the table) or one composed here ({@link #COMPOSED}).
 */
final class EventFields {
    static final Set<String> CONVERSIONS =
            new HashSet<>(Arrays.asList("text", "int", "isr_list", "heap_mb"));
    static final Set<String> COMPOSED = new HashSet<>(Arrays.asList("ts", "broker_id", "level",
            "topic", "partition", "leader", "isr_size", "pause_s", "collector", "uptime_s"));

    private static final Pattern TOPIC_ID = Pattern.compile("^[A-Za-z0-9_-]{22}:");
    private static final Pattern TOPIC_PARTITION = Pattern.compile("^(.+)-(\\d+)$");
    private static final Pattern NOT_ISR = Pattern.compile("[^0-9,]");
    private static final Pattern HEAP_NUMBER = Pattern.compile("^([\\d.,]+)");
    private static final Pattern HEAP_UNIT = Pattern.compile("([BKMG])$");

    private final Spec spec;
    private final Shapes shapes;

    EventFields(Spec spec, Shapes shapes) {
        this.spec = spec;
        this.shapes = shapes;
    }

    /**
     * The fields in the table's order. {@code p} is the matched pattern (null: none),
     * {@code broker} the record's checked broker id.
     */
    Object[] fields(Spec.PatternSpec p, Map<String, String> groups, String head, String broker) {
        Object[] out = new Object[spec.eventFields.length];
        Boolean isGc = p == null ? null : "gc".equals(p.family);
        boolean gc = Boolean.TRUE.equals(isGc);
        // fields.line_columns: the line's own broker, the entry's broker, time and level.
        String lineBroker = null;
        boolean wantLine = (broker == null || broker.isEmpty()) || (p != null && p.leaderIsSelf);
        if (!gc && head != null && wantLine) {
            Integer id = SparkText.tryInt(SparkText.emptyToNull(
                    SparkText.extract(spec.lineBroker, head, 1)));
            lineBroker = id == null ? null : id.toString();
        }
        String namedBroker = broker == null ? null : SparkText.emptyToNull(SparkText.trimSpaces(broker));
        if (p == null) { // no pattern, no groups: every field is null but the broker's
            if (spec.brokerField >= 0) {
                out[spec.brokerField] = namedBroker != null ? namedBroker : lineBroker;
            }
            return out;
        }
        for (int i = 0; i < out.length; i++) {
            Spec.FieldSpec f = spec.eventFields[i];
            if ("simple".equals(f.how)) {
                out[i] = convert(f.conversion, g(groups, f.group));
                continue;
            }
            switch (f.name) {
                case "ts":
                    out[i] = p == null ? null : shapes.ts(head);
                    break;
                case "broker_id":
                    out[i] = namedBroker != null ? namedBroker : lineBroker;
                    break;
                case "level":
                    out[i] = p == null || gc ? null : SparkText.emptyToNull(shapes.level(head));
                    break;
                case "topic": {
                    String topic = g(groups, "topic");
                    out[i] = topic != null ? topic : topicPartition(g(groups, "tp"), 1);
                    break;
                }
                case "partition": {
                    String part = g(groups, "partition");
                    out[i] = SparkText.tryInt(part != null ? part : topicPartition(g(groups, "tp"), 2));
                    break;
                }
                case "leader": {
                    Integer leader = SparkText.tryInt(g(groups, "leader"));
                    if (leader == null && p != null && p.leaderIsSelf) {
                        leader = SparkText.tryInt(lineBroker);
                    }
                    out[i] = leader;
                    break;
                }
                case "isr_size": {
                    Integer size = SparkText.tryInt(g(groups, "isr_size"));
                    if (size == null) {
                        Integer[] set = isrList(g(groups, "isr_set"));
                        size = set == null ? null : set.length;
                    }
                    out[i] = size;
                    break;
                }
                case "pause_s":
                    out[i] = seconds(g(groups, "pause"), g(groups, "pause_unit"));
                    break;
                case "collector":
                    out[i] = p == null || !gc ? null : collector(p, groups);
                    break;
                case "uptime_s":
                    out[i] = p == null || !gc ? null : uptime(head);
                    break;
                default:
                    throw new IllegalStateException("no field " + f.name);
            }
        }
        return out;
    }

    /** fields.group_reader: the group's text, null where it is empty or the pattern has none. */
    private static String g(Map<String, String> groups, String name) {
        return groups == null ? null : SparkText.emptyToNull(groups.get(name));
    }

    private static Object convert(String conversion, String value) {
        switch (conversion) {
            case "text":
                return value;
            case "int":
                return SparkText.tryInt(value);
            case "isr_list":
                return isrList(value);
            case "heap_mb":
                return heapMb(value);
            default:
                throw new IllegalStateException("no conversion " + conversion);
        }
    }

    /** The topic (1) or partition (2) of a "topic-partition" (a topic id prefix left out). */
    private static String topicPartition(String tp, int group) {
        if (tp == null) {
            return null;
        }
        String plain = SparkText.replace(TOPIC_ID, tp, "");
        return SparkText.emptyToNull(SparkText.extract(TOPIC_PARTITION, plain, group));
    }

    /** columns.isr_list: "3,1,4", "[1, 2]", "Set(3, 1)" -> ints (null where one overflows). */
    static Integer[] isrList(String value) {
        if (value == null) {
            return null;
        }
        String digits = SparkText.replace(NOT_ISR, value, "");
        List<Integer> out = new ArrayList<>();
        for (String part : digits.split(",", -1)) {
            if (!part.isEmpty()) {
                out.add(SparkText.tryInt(part));
            }
        }
        return out.toArray(new Integer[0]);
    }

    /** columns.heap_mb. */
    static Double heapMb(String value) {
        if (value == null) {
            return null;
        }
        Double number = SparkText.tryDouble(
                SparkText.extract(HEAP_NUMBER, value, 1).replace(",", "."));
        String unit = SparkText.extract(HEAP_UNIT, value, 1);
        Double factor;
        switch (unit) {
            case "B": factor = 1 / 1048576.0; break;
            case "K": factor = 1 / 1024.0; break;
            case "M": factor = 1.0; break;
            case "G": factor = 1024.0; break;
            default: factor = null;
        }
        if (number == null || factor == null) {
            return null;
        }
        return SparkText.round(number * factor, 3);
    }

    /** columns.seconds. */
    static Double seconds(String value, String unit) {
        if (value == null) {
            return null;
        }
        Double number = SparkText.tryDouble(value.replace(",", "."));
        Double factor = null;
        if (unit != null) {
            switch (unit) {
                case "secs": case "s": factor = 1.0; break;
                case "ms": factor = 1e-3; break;
                case "us": factor = 1e-6; break;
                case "ns": factor = 1e-9; break;
                default: factor = null;
            }
        }
        if (number == null || factor == null) {
            return null;
        }
        return SparkText.round(number * factor, 9);
    }

    /** fields.gc_columns' collector. */
    private String collector(Spec.PatternSpec p, Map<String, String> groups) {
        if (p.collector != null) {
            return p.collector;
        }
        String young = g(groups, "young_gen");
        String byYoung = young == null ? null : spec.youngGenCollector.get(young);
        if (byYoung != null) {
            return byYoung;
        }
        String cause = g(groups, "cause");
        return cause != null && cause.startsWith("G1 ") ? "g1" : null;
    }

    /** fields.gc_columns' uptime. */
    private Double uptime(String head) {
        Matcher m = spec.uptimeUnified.matcher(head);
        String value = "", unit = "";
        if (m.find()) {
            value = m.group(1) == null ? "" : m.group(1);
            unit = m.group(2) == null ? "" : m.group(2);
        }
        Double unified = seconds(SparkText.emptyToNull(value), unit);
        if (unified != null) {
            return unified;
        }
        return SparkText.tryDouble(SparkText.emptyToNull(SparkText.extract(spec.uptimeJdk8, head, 1)));
    }
}
