package kafkahealth.parse;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * jsonlayout.with_layout_text: an entry that is a log4j JSON layout's event (it starts with
 * "{" and has a message) as Kafka's default layout writes it, {@code [time] LEVEL message
 * (logger)} and the thrown exception's {@code name: message} on the next line; any other entry
 * as it is.
 */
final class LayoutText {
    /** date_format(..., "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"): Spark writes the proleptic year. */
    private final DateTimeFormatter isoMillis;
    private final Spec spec;

    LayoutText(Spec spec) {
        this.spec = spec;
        isoMillis = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX", Locale.US)
                .withZone(spec.sessionZone);
    }

    private String first(String text, String field) {
        for (String[] path : spec.layout.get(field)) {
            String v = SparkJson.getJsonObject(text, path);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    String text(String text) {
        if (!text.startsWith("{")) {
            return text;
        }
        String message = first(text, "message");
        if (message == null) {
            return text;
        }
        String stamp = first(text, "stamp");
        String ms = first(text, "ms");
        String sec = first(text, "sec");
        String nanos = first(text, "nanos");
        String level = first(text, "level");
        String logger = first(text, "logger");
        String thrown = first(text, "thrown");
        String thrownMsg = first(text, "thrown_msg");
        Boolean epochStamp = stamp == null ? null : spec.epochDigits.matcher(stamp).find();
        Long millis = SparkText.tryLong(ms);
        if (millis == null && Boolean.TRUE.equals(epochStamp)) {
            millis = SparkText.tryLong(stamp);
        }
        if (millis == null) {
            Long s = SparkText.tryLong(sec);
            if (s != null) {
                Long n = SparkText.tryLong(nanos);
                long floor = (long) Math.floor((n == null ? 0L : n) / 1_000_000.0);
                try {
                    millis = Math.addExact(Math.multiplyExact(s, 1000L), floor);
                } catch (ArithmeticException e) {
                    millis = null; // try_multiply / try_add: an overflow is no time
                }
            }
        }
        String when = Boolean.FALSE.equals(epochStamp) ? stamp : null;
        if (when == null && millis != null) {
            when = isoFromMillis(millis);
        }
        String line = concatWs(" ", when == null ? null : "[" + when + "]",
                SparkText.upper(level), message, logger == null ? null : "(" + logger + ")");
        String thrownText = concatWs(": ", thrown, thrown == null ? null : thrownMsg);
        return thrownText.isEmpty() ? line : line + "\n" + thrownText;
    }

    /** concat_ws(sep, parts...): the parts that are not null, empty ones included. */
    private static String concatWs(String sep, String... parts) {
        StringBuilder out = new StringBuilder();
        boolean any = false;
        for (String part : parts) {
            if (part != null) {
                if (any) {
                    out.append(sep);
                }
                out.append(part);
                any = true;
            }
        }
        return out.toString();
    }

    /** date_format(timestamp_millis(ms), ...); null where the microseconds overflow. */
    private String isoFromMillis(long ms) {
        long micros;
        try {
            micros = Math.multiplyExact(ms, 1000L);
        } catch (ArithmeticException e) {
            return null;
        }
        Instant at = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                Math.floorMod(micros, 1_000_000L) * 1000L);
        return isoMillis.format(at);
    }
}
