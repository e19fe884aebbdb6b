package kafkahealth.parse;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * parse_entries for one decoded entry: its bounded texts (the head, its first line, and the
 * body, each cut to scan_chars: every regex runs on bounded text), its family, whether it is
 * usable, the prefilter, the pattern that matches, the suspect, the outcome, the reason, the
 * event fields and the event time.
 */
final class EntryParser {
    private static final Pattern FINAL_CR = Pattern.compile("\r$");

    private final Spec spec;
    private final LayoutText layout;
    private final Shapes shapes;
    private final Prefilter prefilter;
    private final Matching matching;
    private final EventFields fields;

    EntryParser(Spec spec) {
        this.spec = spec;
        layout = new LayoutText(spec);
        shapes = new Shapes(spec);
        prefilter = new Prefilter(spec);
        matching = new Matching(spec);
        fields = new EventFields(spec, shapes);
    }

    /**
     * The text the entry-scope patterns read (reference.scan_window): the whole entry up to
     * twice {@code chars} code points; a longer one's first {@code chars} and, of its last
     * {@code chars}, the part from their first line on (none without one). Bounded either way.
     */
    static String window(String s, int chars) {
        int n = s.length();
        if (n <= 2 * chars || s.codePointCount(0, n) <= 2 * chars) {
            return s;
        }
        String head = s.substring(0, s.offsetByCodePoints(0, chars));
        int nl = s.indexOf('\n', s.offsetByCodePoints(n, -chars));
        return nl < 0 ? head : head + s.substring(nl);
    }

    /** What parse_entries adds to one entry. */
    static final class Parsed {
        String outcome, reason, type;
        Object[] fields;
        Long eventMs;
        /** The raw value and the file are kept (values_for_dead_letters_only). */
        boolean keepLetter;
    }

    Parsed parse(RecordDecoder.Entry e, Long sourceMs) {
        String msg = e.message == null ? "" : e.message;
        String text = layout.text(msg);
        String first = SparkText.cut(SparkText.firstLine(text), spec.scanChars);
        String head = first.endsWith("\r") ? SparkText.replace(FINAL_CR, first, "") : first;
        String body = window(text, spec.scanChars);
        String family = shapes.family(head, e.kind);
        String bad = e.badReason;
        boolean empty = msg.isEmpty();
        boolean continuation = e.continued
                || !shapes.defaultLayout(head)
                && spec.continuation.matcher(head).find()
                && !spec.entryStart.matcher(head).find();
        boolean usable = bad == null && !empty && !continuation;
        boolean maybe = usable && prefilter.maybe(body, family);
        Spec.PatternSpec[] found = new Spec.PatternSpec[1];
        Matcher m = maybe ? matching.match(head, body, family, found) : null;
        Spec.PatternSpec p = found[0];
        String suspect = maybe && p == null ? matching.suspect(head, body, family) : null;
        Map<String, String> groups = p == null ? null : Matching.groups(p, m);

        Parsed out = new Parsed();
        boolean known = family.equals("gc") || family.equals("kafka");
        if (p != null) {
            out.outcome = "event";
            out.type = p.event;
        } else if (suspect != null) {
            out.outcome = "malformed";
            out.reason = suspect;
        } else {
            out.outcome = "unrecognised";
            if (bad != null) {
                out.reason = bad;
            } else if (empty) {
                out.reason = "empty";
            } else if (continuation) {
                out.reason = "continuation";
            } else if (!known && !shapes.isEntryStart(head)) {
                out.reason = "unknown_format";
            } else {
                out.reason = "no_event";
            }
        }
        out.fields = fields.fields(p, groups, head, e.brokerId);
        if (p != null) {
            Integer ts = spec.fieldIndex.get("ts");
            Long at = ts == null ? null
                    : EventTime.millis((String) out.fields[ts], spec.sessionZone, spec.logZone);
            out.eventMs = at != null ? at : sourceMs;
        }
        boolean mayBeLetter = maybe || bad != null || empty || !known;
        out.keepLetter = !spec.lettersOnly || (mayBeLetter && p == null);
        return out;
    }
}
