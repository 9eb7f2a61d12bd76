package io.msgscope.driver.nats.netty;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the lean engine reads of the server's INFO line (NATS client protocol, "INFO"): who the server is, the
 * largest payload it takes, and whether it wants TLS or credentials. Everything else in the JSON is skipped.
 *
 * @param maxPayload   the server's {@code max_payload} in bytes, 0 when it announces none
 * @param tlsRequired  the server expects a TLS handshake right after this INFO (nats-server 2.9: INFO in plain
 *                     text, then TLS)
 * @param tlsAvailable the server takes TLS if the client asks for it ({@code allow_non_tls})
 */
record NatsInfo(String serverId, String serverName, String version, int proto, long maxPayload, boolean tlsRequired,
                boolean tlsAvailable, boolean authRequired, boolean headers, boolean jetStream) {

    /** Parses the JSON object after {@code INFO}; a malformed one is an IllegalArgumentException saying where. */
    static NatsInfo parse(String json) {
        Map<String, Object> m = new Json(json).object();
        return new NatsInfo(string(m, "server_id"), string(m, "server_name"), string(m, "version"),
                (int) number(m, "proto"), number(m, "max_payload"), bool(m, "tls_required"), bool(m, "tls_available"),
                bool(m, "auth_required"), bool(m, "headers"), bool(m, "jetstream"));
    }

    private static String string(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof String s ? s : "";
    }

    private static long number(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Number n ? n.longValue() : 0;
    }

    private static boolean bool(Map<String, Object> m, String key) {
        return Boolean.TRUE.equals(m.get(key));
    }

    /** A strict reader of one JSON value (RFC 8259): objects, arrays, strings with escapes, numbers, literals. */
    static final class Json {
        private final String s;
        private int i;

        Json(String s) {
            this.s = s;
        }

        /** The whole text as one object; nothing but white space may follow it. */
        Map<String, Object> object() {
            skipSpace();
            if (peek() != '{') {
                throw error("expected '{'");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) value();
            skipSpace();
            if (i != s.length()) {
                throw error("unexpected text after the object");
            }
            return m;
        }

        private Object value() {
            skipSpace();
            char c = peek();
            switch (c) {
                case '{':
                    return readObject();
                case '[':
                    return readArray();
                case '"':
                    return readString();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return readNumber();
                    }
                    throw error("unexpected character '" + c + "'");
            }
        }

        private Map<String, Object> readObject() {
            Map<String, Object> m = new LinkedHashMap<>();
            i++; // {
            skipSpace();
            if (peek() == '}') {
                i++;
                return m;
            }
            while (true) {
                skipSpace();
                if (peek() != '"') {
                    throw error("expected a member name");
                }
                String key = readString();
                skipSpace();
                expect(':');
                m.put(key, value());
                skipSpace();
                char c = next();
                if (c == '}') {
                    return m;
                }
                if (c != ',') {
                    i--;
                    throw error("expected ',' or '}'");
                }
            }
        }

        private List<Object> readArray() {
            List<Object> l = new ArrayList<>();
            i++; // [
            skipSpace();
            if (peek() == ']') {
                i++;
                return l;
            }
            while (true) {
                l.add(value());
                skipSpace();
                char c = next();
                if (c == ']') {
                    return l;
                }
                if (c != ',') {
                    i--;
                    throw error("expected ',' or ']'");
                }
            }
        }

        private String readString() {
            i++; // "
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '"') {
                    return b.toString();
                }
                if (c < 0x20) {
                    i--;
                    throw error("control character in a string");
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = next();
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw error("short \\u escape");
                        }
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw error("bad \\u escape");
                        }
                        i += 4;
                    }
                    default -> {
                        i--;
                        throw error("bad escape '\\" + e + "'");
                    }
                }
            }
        }

        private Number readNumber() {
            int start = i;
            if (peek() == '-') {
                i++;
            }
            boolean fraction = false;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c >= '0' && c <= '9') {
                    i++;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                    fraction = true;
                    i++;
                } else {
                    break;
                }
            }
            String t = s.substring(start, i);
            try {
                return fraction ? (Number) Double.parseDouble(t) : (Number) Long.parseLong(t);
            } catch (NumberFormatException e) {
                i = start;
                throw error("bad number '" + t + "'");
            }
        }

        private Object literal(String word, Object v) {
            if (!s.startsWith(word, i)) {
                throw error("unexpected text");
            }
            i += word.length();
            return v;
        }

        private void expect(char c) {
            if (next() != c) {
                i--;
                throw error("expected '" + c + "'");
            }
        }

        private char peek() {
            if (i >= s.length()) {
                throw error("unexpected end");
            }
            return s.charAt(i);
        }

        private char next() {
            char c = peek();
            i++;
            return c;
        }

        private void skipSpace() {
            while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\n'
                    || s.charAt(i) == '\r')) {
                i++;
            }
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("malformed JSON at character " + i + ": " + what);
        }
    }
}
