package io.msgscope.coordinator.report;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Locale;

/** A tiny HTML builder that escapes every text it is given. */
final class Html {
    private final StringBuilder sb = new StringBuilder();

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder o = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> o.append("&amp;");
                case '<' -> o.append("&lt;");
                case '>' -> o.append("&gt;");
                case '"' -> o.append("&quot;");
                case '\'' -> o.append("&#39;");
                default -> o.append(c);
            }
        }
        return o.toString();
    }

    /** Escapes a relative file path for an attribute, percent-encoding what a URL may not hold. */
    static String href(String relative) {
        StringBuilder o = new StringBuilder();
        for (byte b : relative.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-._~/".indexOf(c) >= 0) {
                o.append((char) c);
            } else {
                o.append('%').append(String.format(Locale.ROOT, "%02X", c));
            }
        }
        return o.toString();
    }

    /** A number for people: integers plain, others with 3 significant decimals; locale-independent. */
    static String num(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return String.format(Locale.ROOT, "%,d", (long) v);
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.1f", v);
        }
        if (a >= 1 || a == 0) {
            return String.format(Locale.ROOT, "%.3f", v);
        }
        return String.format(Locale.ROOT, "%.4g", v);
    }

    static String value(JsonNode n) {
        if (n == null || n.isMissingNode() || n.isNull()) {
            return "–";
        }
        if (n.isNumber()) {
            return num(n.asDouble());
        }
        if (n.isValueNode()) {
            return n.asText();
        }
        return n.toString();
    }

    Html raw(String s) {
        sb.append(s);
        return this;
    }

    Html text(String s) {
        sb.append(esc(s));
        return this;
    }

    Html el(String tag, String text) {
        sb.append('<').append(tag).append('>').append(esc(text)).append("</").append(tag).append(">\n");
        return this;
    }

    Html table(List<String> head, List<List<String>> rows) {
        sb.append("<table>\n<thead><tr>");
        for (String h : head) {
            sb.append("<th>").append(esc(h)).append("</th>");
        }
        sb.append("</tr></thead>\n<tbody>\n");
        for (List<String> r : rows) {
            sb.append("<tr>");
            for (String c : r) {
                sb.append("<td>").append(esc(c)).append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</tbody></table>\n");
        return this;
    }

    Html img(String file, String caption) {
        sb.append("<figure><img src=\"").append(esc(href(file))).append("\" alt=\"").append(esc(caption))
                .append("\"><figcaption>").append(esc(caption)).append("</figcaption></figure>\n");
        return this;
    }

    /** A table cell naming a run folder under {@code dir}, a link to its page when it has one. */
    Html folderCell(java.nio.file.Path dir, String folder) {
        if (java.nio.file.Files.isRegularFile(dir.resolve(folder).resolve("index.html"))) {
            return raw("<td><a href=\"").text(href(folder + "/index.html")).raw("\">").text(folder).raw("</a></td>");
        }
        return raw("<td>").text(folder).raw("</td>");
    }

    Html pre(String text) {
        sb.append("<pre>").append(esc(text)).append("</pre>\n");
        return this;
    }

    static String page(String title, String body) {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                + "<title>" + esc(title) + "</title>\n<style>\n" + CSS + "</style>\n</head>\n<body>\n"
                + body + "<footer>written by msgscope report; opens from disk, no network, no scripts</footer>\n"
                + "</body>\n</html>\n";
    }

    private static final String CSS = """
            body { font-family: sans-serif; margin: 2em auto; max-width: 1250px; color: #222; line-height: 1.4; }
            h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
            table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; display: block;
                    max-width: 100%; overflow-x: auto; }
            td { overflow-wrap: break-word; }
            th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; } th { white-space: nowrap; }
            th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
            pre { background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 0.85em; }
            figure { margin: 1em 0; } img { max-width: 100%; border: 1px solid #ddd; }
            figcaption { font-size: 0.85em; color: #555; }
            .status-ok { color: #070; font-weight: bold; } .status-failed { color: #b00; font-weight: bold; }
            .sentence { font-size: 1.1em; background: #eef4ff; padding: 0.7em; border-left: 4px solid #36c; }
            footer { margin-top: 3em; font-size: 0.8em; color: #888; }
            """;

    @Override
    public String toString() {
        return sb.toString();
    }
}
