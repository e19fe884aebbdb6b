package kafkahealth.parse;

import java.time.LocalDateTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.ResolverStyle;
import java.time.chrono.IsoChronology;
import java.time.temporal.ChronoField;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An entry's first line (its head), as parsing.stamps and events._family read it: whether it
 * is in Kafka's default layout or starts an entry at all, its family, its own time and level.
 */
final class Shapes {
    private static final Pattern ZONE = Pattern.compile("^([+-]\\d\\d):?(\\d\\d)$");
    /** try_to_timestamp(text, 'dd MMM yyyy HH:mm:ss,SSS') and without the fraction. */
    private static final DateTimeFormatter LOG4J_MILLIS = sparkParser(true);
    private static final DateTimeFormatter LOG4J_SECONDS = sparkParser(false);
    private static final DateTimeFormatter ISO_MILLIS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS", Locale.US);

    private final Spec spec;

    Shapes(Spec spec) {
        this.spec = spec;
    }

    /** Spark's parser of that pattern: case-insensitive, proleptic year, strict, US names. */
    private static DateTimeFormatter sparkParser(boolean millis) {
        DateTimeFormatterBuilder b = new DateTimeFormatterBuilder().parseCaseInsensitive()
                .appendPattern("dd MMM uuuu HH:mm:ss");
        if (millis) {
            b.appendLiteral(',').appendFraction(ChronoField.NANO_OF_SECOND, 1, 3, false);
        }
        return b.toFormatter(Locale.US).withChronology(IsoChronology.INSTANCE)
                .withResolverStyle(ResolverStyle.STRICT);
    }

    /** stamps.default_layout: "[", then a level at its place. */
    boolean defaultLayout(String head) {
        if (!head.startsWith("[")) {
            return false;
        }
        for (String level : spec.defaultLayoutLevels) {
            if (SparkText.hasAt(head, spec.defaultLayoutLevelAt, level)) {
                return true;
            }
        }
        return false;
    }

    /** stamps.is_entry_start. */
    boolean isEntryStart(String head) {
        return defaultLayout(head) || spec.entryStart.matcher(head).find();
    }

    /** events._family for kind "auto" (the hint: the record's log kind). */
    String family(String head, String kind) {
        if (!"auto".equals(spec.kind)) {
            return spec.kind;
        }
        if (defaultLayout(head)) {
            return "kafka";
        }
        boolean gcText = false;
        for (String t : spec.gcLineTexts) {
            if (head.contains(t)) {
                gcText = true;
                break;
            }
        }
        if (gcText && spec.gcLine.matcher(head).find()) {
            return "gc";
        }
        if (spec.log4jLine.matcher(head).find()) {
            return "kafka";
        }
        String k = SparkText.lower(kind);
        if ("gc".equals(k)) {
            return "gc";
        }
        if (k != null) {
            for (String kafka : spec.kafkaKinds) {
                if (kafka.equals(k)) return "kafka";
            }
        }
        return "auto";
    }

    /** stamps.default_stamp. */
    boolean defaultStamp(String head) {
        int at = spec.defaultLayoutLevelAt;
        return defaultLayout(head) && SparkText.substring(head, at, 1).equals("]")
                && spec.defaultLayoutStamp.matcher(SparkText.substring(head, 2, at - 2)).find();
    }

    /** The entry's time as ISO text (fields.line_columns' ts), null when it has none. */
    String ts(String head) {
        if (defaultStamp(head)) {
            return SparkText.substring(head, 2, 10) + "T" + SparkText.substring(head, 13, 8) + "."
                    + SparkText.substring(head, 22, 3);
        }
        return isoTs(head);
    }

    /** The level (fields.line_columns' level, before empty_to_null). */
    String level(String head) {
        if (defaultStamp(head)) {
            return SparkText.rtrimSpaces(SparkText.substring(head, spec.defaultLayoutLevelAt + 2, 5));
        }
        return SparkText.extract(spec.level, head, 1);
    }

    /** stamps.iso_ts. */
    String isoTs(String head) {
        Matcher m = spec.timestamp.matcher(head);
        String date = "", time = "", frac = "", zone = "";
        if (m.find()) {
            date = orEmpty(m.group(1));
            time = orEmpty(m.group(2));
            frac = orEmpty(m.group(3));
            zone = orEmpty(m.group(4));
        }
        if (!date.isEmpty()) {
            String offset = zone.isEmpty() ? "" : zone.equals("Z") ? "Z"
                    : ZONE.matcher(zone).replaceAll("$1:$2");
            String fraction = frac.isEmpty() ? "" : "." + frac;
            return date + "T" + time + fraction + offset;
        }
        String text = SparkText.extract(spec.log4jDate, head, 1);
        LocalDateTime named = parse(text, LOG4J_MILLIS);
        if (named == null) {
            named = parse(text, LOG4J_SECONDS);
        }
        if (named == null) {
            return null;
        }
        // Read and written in the session's zone: the wall clock is kept.
        ZonedDateTime at = ZonedDateTime.of(named, spec.sessionZone);
        return ISO_MILLIS.format(at.withZoneSameInstant(spec.sessionZone));
    }

    private static LocalDateTime parse(String text, DateTimeFormatter f) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return LocalDateTime.parse(text, f);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
