package kafkahealth.parse;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.regex.Pattern;

/**
 * stamps.event_ms: an event's time in epoch milliseconds from its ISO text (Spark's
 * {@code try_to_timestamp}; a time without an offset is read in the log's time zone), for the
 * texts the parse writes: {@code yyyy-MM-ddTHH:mm:ss[.fraction][Z|+hh:mm]}.
 */
final class EventTime {
    private static final Pattern HAS_OFFSET = Pattern.compile("(Z|[+-]\\d\\d:\\d\\d)$");
    private static final Pattern SHAPE = Pattern.compile(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d{1,9})?(?:Z|[+-]\\d\\d:\\d\\d)?");

    private EventTime() {}

    static Long millis(String ts, ZoneId session, ZoneId log) {
        if (ts == null || !SHAPE.matcher(ts).matches()) {
            return null; // the parse writes no other shape (a test holds it to that)
        }
        try {
            int year = Integer.parseInt(ts.substring(0, 4));
            int month = Integer.parseInt(ts.substring(5, 7));
            int day = Integer.parseInt(ts.substring(8, 10));
            int hour = Integer.parseInt(ts.substring(11, 13));
            int minute = Integer.parseInt(ts.substring(14, 16));
            int second = Integer.parseInt(ts.substring(17, 19));
            int i = 19;
            int nanos = 0;
            if (i < ts.length() && ts.charAt(i) == '.') {
                int j = i + 1;
                int digits = 0;
                while (j < ts.length() && Character.isDigit(ts.charAt(j))) {
                    if (digits < 9) {
                        nanos = nanos * 10 + (ts.charAt(j) - '0');
                    }
                    digits++;
                    j++;
                }
                for (int k = Math.min(digits, 9); k < 9; k++) nanos *= 10;
                i = j;
            }
            ZoneId zone = session;
            boolean offset = i < ts.length();
            if (offset) {
                String z = ts.substring(i);
                zone = z.equals("Z") ? ZoneOffset.UTC : ZoneId.of(z);
            }
            LocalDateTime local = LocalDateTime.of(LocalDate.of(year, month, day),
                    LocalTime.of(hour, minute, second, nanos));
            Instant stamped = local.atZone(zone).toInstant();
            long micros = Math.addExact(Math.multiplyExact(stamped.getEpochSecond(), 1_000_000L),
                    stamped.getNano() / 1000);
            boolean hasOffset = HAS_OFFSET.matcher(ts).find();
            if (!hasOffset) {
                // to_utc_timestamp(ts, log zone): its wall clock in UTC, read in the log's zone.
                Instant at = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                        Math.floorMod(micros, 1_000_000L) * 1000L);
                LocalDateTime wall = LocalDateTime.ofInstant(at, ZoneOffset.UTC);
                Instant rebased = wall.atZone(log).toInstant();
                micros = Math.addExact(Math.multiplyExact(rebased.getEpochSecond(), 1_000_000L),
                        rebased.getNano() / 1000);
            }
            return Math.floorDiv(micros, 1000L);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
