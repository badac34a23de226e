package io.sluice.key;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Who shares a limit: one or more alternatives separated by {@code |}, each one or more key parts joined by
 * {@code +}, such as {@code user+ip} or {@code user|ip}. {@code +} binds tighter than {@code |}: {@code user+ip|ip}
 * is "user and address, else address". The first alternative whose parts all resolve is the key.
 * Immutable and thread-safe.
 *
 * @param alternatives the alternatives in the order they are tried; one for a key without {@code |}
 */
public record KeySpec(List<Alternative> alternatives) {
    public static final String EXPECTED = "ip, user, session, global, header:<Name>, param:<name> or cookie:<name>, "
            + "combined with + (user+ip), alternatives separated by | and tried in order (user|ip)";

    /** The kinds of key part. */
    public enum Kind { IP, USER, SESSION, GLOBAL, HEADER, PARAM, COOKIE }

    /** One part: a kind and, for header, param and cookie, a name. */
    public record Part(Kind kind, String name) {
        @Override
        public String toString() {
            return name == null ? kind.name().toLowerCase(Locale.ROOT) : kind.name().toLowerCase(Locale.ROOT) + ":" + name;
        }
    }

    /**
     * One alternative: parts joined by {@code +}, every one of which must resolve. Its text ({@code user+ip}) names
     * the kind of a resolved value in a key with alternatives. Immutable.
     */
    public static final class Alternative {
        private final List<Part> parts;
        private final String text;

        public Alternative(List<Part> parts) {
            this.parts = List.copyOf(parts);
            this.text = String.join("+", this.parts.stream().map(Part::toString).toList());
        }

        public List<Part> parts() {
            return parts;
        }

        /** Whether every part is {@code global}: it always resolves, to one value for everyone. */
        public boolean global() {
            return parts.stream().allMatch(p -> p.kind() == Kind.GLOBAL);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Alternative a && a.parts.equals(parts);
        }

        @Override
        public int hashCode() {
            return Objects.hash(parts);
        }

        @Override
        public String toString() {
            return text;
        }
    }

    public KeySpec {
        alternatives = List.copyOf(alternatives);
    }

    public static final KeySpec IP = new KeySpec(List.of(new Alternative(List.of(new Part(Kind.IP, null)))));

    /**
     * Parses a rule's {@code key}.
     *
     * @param text such as {@code ip}, {@code user+header:X-Tenant} or {@code user|ip}
     * @return the key, or empty when a part is not one of the forms, a part repeats within an alternative, or an
     *         alternative could never be used: it has every part of an earlier one (which resolves whenever it would),
     *         or follows one that is all {@code global} (which always resolves)
     */
    public static Optional<KeySpec> parse(String text) {
        List<Alternative> alternatives = new ArrayList<>();
        for (String piece : text.split("\\|", -1)) {
            Optional<Alternative> a = alternative(piece);
            if (a.isEmpty()) return Optional.empty();
            for (Alternative earlier : alternatives) {
                if (earlier.global() || a.get().parts().containsAll(earlier.parts())) return Optional.empty();
            }
            alternatives.add(a.get());
        }
        return Optional.of(new KeySpec(alternatives));
    }

    private static Optional<Alternative> alternative(String text) {
        String[] pieces = text.split("\\+", -1);
        List<Part> parts = new ArrayList<>();
        for (String raw : pieces) {
            String p = raw.trim();
            int colon = p.indexOf(':');
            String kind = (colon < 0 ? p : p.substring(0, colon)).toLowerCase(Locale.ROOT);
            String name = colon < 0 ? null : p.substring(colon + 1).trim();
            Part part = switch (kind) {
                case "ip" -> name == null ? new Part(Kind.IP, null) : null;
                case "user" -> name == null ? new Part(Kind.USER, null) : null;
                case "session" -> name == null ? new Part(Kind.SESSION, null) : null;
                case "global" -> name == null ? new Part(Kind.GLOBAL, null) : null;
                case "header" -> isToken(name) ? new Part(Kind.HEADER, name) : null;
                case "cookie" -> isToken(name) ? new Part(Kind.COOKIE, name) : null;
                case "param" -> name != null && !name.isEmpty() && name.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '&' && c != '=')
                        ? new Part(Kind.PARAM, name) : null;
                default -> null;
            };
            if (part == null || parts.contains(part)) return Optional.empty();
            parts.add(part);
        }
        return Optional.of(new Alternative(parts));
    }

    /** Whether every request resolves to the same key. */
    public boolean global() {
        return alternatives.size() == 1 && alternatives.get(0).global();
    }

    /** Whether the key has alternatives ({@code |}): then a resolved value names the alternative it came from. */
    public boolean alternates() {
        return alternatives.size() > 1;
    }

    /** Whether some alternative resolves without an authenticated user (one with no {@code user} part). */
    public boolean resolvesWithoutUser() {
        return alternatives.stream().anyMatch(a -> a.parts().stream().noneMatch(p -> p.kind() == Kind.USER));
    }

    static boolean isToken(String s) {
        if (s == null || s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) return false;
        }
        return true;
    }

    @Override
    public String toString() {
        return String.join("|", alternatives.stream().map(Alternative::toString).toList());
    }
}
