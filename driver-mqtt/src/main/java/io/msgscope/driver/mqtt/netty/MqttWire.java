package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.driver.Fault;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttReasonCodes;

import java.nio.charset.StandardCharsets;

/**
 * What the lean engine reads and writes of MQTT by hand: the packet types, the remaining length, MQTT 5
 * Variable Byte Integers and properties, and the names of reason codes. Static and allocation-free on the
 * per-message path; the reason strings and names are read on the error path only.
 */
final class MqttWire {
    static final int CONNECT = 1;
    static final int CONNACK = 2;
    static final int PUBLISH = 3;
    static final int PUBACK = 4;
    static final int PUBREC = 5;
    static final int PUBREL = 6;
    static final int PUBCOMP = 7;
    static final int SUBSCRIBE = 8;
    static final int SUBACK = 9;
    static final int PINGREQ = 12;
    static final int PINGRESP = 13;
    static final int DISCONNECT = 14;
    static final int AUTH = 15;
    /** The DUP flag of a PUBLISH's fixed header: a publish sent again (MQTT 5 §3.3.1.1). */
    static final int DUP = 0x08;

    /** MQTT 5 DISCONNECT reason codes the client sends on a broken packet. */
    static final byte MALFORMED_PACKET = (byte) 0x81;
    static final byte PROTOCOL_ERROR = (byte) 0x82;
    static final byte PACKET_TOO_LARGE = (byte) 0x95;

    private MqttWire() {
    }

    /** The variable-length "remaining length" of a fixed header (§2.2.3). */
    static void writeLength(ByteBuf b, int len) {
        do {
            int digit = len & 0x7f;
            len >>>= 7;
            b.writeByte(len > 0 ? digit | 0x80 : digit);
        } while (len > 0);
    }

    /**
     * A Variable Byte Integer at {@code at} that must end before {@code end} (MQTT 5 §1.5.5), packed as
     * {@code value << 3 | bytes}, or -1 when it is malformed or runs past {@code end}. No allocation.
     */
    static long readVarInt(ByteBuf in, int at, int end) {
        int value = 0;
        for (int i = 0; i < 4; i++) {
            if (at + i >= end) {
                return -1;
            }
            int b = in.getUnsignedByte(at + i);
            value |= (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                return (long) value << 3 | (i + 1);
            }
        }
        return -1;
    }

    /**
     * The Reason String (0x1F) among the MQTT 5 properties in {@code in[at, end)}, as {@code " (text)"}, or
     * empty; only on the error path (it allocates). Properties this client cannot walk end the search.
     */
    static String reasonString(ByteBuf in, int at, int end) {
        int p = at;
        while (p < end) {
            int id = in.getUnsignedByte(p++);
            int skip;
            switch (id) {
                case 0x01, 0x17, 0x19, 0x24, 0x25, 0x28, 0x29, 0x2A -> skip = 1;
                case 0x13, 0x21, 0x22, 0x23 -> skip = 2;
                case 0x02, 0x11, 0x18, 0x27 -> skip = 4;
                case 0x0B -> {
                    long v = readVarInt(in, p, end);
                    if (v < 0) {
                        return "";
                    }
                    skip = (int) (v & 7);
                }
                case 0x03, 0x08, 0x09, 0x12, 0x15, 0x16, 0x1A, 0x1C, 0x1F -> {
                    if (p + 2 > end) {
                        return "";
                    }
                    int len = in.getUnsignedShort(p);
                    if (p + 2 + len > end) {
                        return "";
                    }
                    if (id == 0x1F) {
                        return " (" + in.toString(p + 2, len, StandardCharsets.UTF_8).replace('\n', ' ') + ")";
                    }
                    skip = 2 + len;
                }
                case 0x26 -> {
                    if (p + 2 > end || p + 4 + in.getUnsignedShort(p) > end) {
                        return "";
                    }
                    int k = in.getUnsignedShort(p);
                    skip = 4 + k + in.getUnsignedShort(p + 2 + k);
                }
                default -> {
                    return "";
                }
            }
            p += skip;
        }
        return "";
    }

    /** {@code " (the reason string)"} when the properties Netty's codec decoded carry one, else empty. */
    static String reasonString(MqttProperties p) {
        MqttProperties.MqttProperty<?> r = p == null ? null : p.getProperty(MqttProperties.REASON_STRING);
        return r == null ? "" : " (" + String.valueOf(r.value()).replace('\n', ' ') + ")";
    }

    /** An integer property Netty's codec decoded, or {@code dflt} when it is absent. */
    static int intProperty(MqttProperties p, int id, int dflt) {
        MqttProperties.MqttProperty<?> v = p.getProperty(id);
        return v != null && v.value() instanceof Integer i ? i : dflt;
    }

    /**
     * The name of an MQTT 5 reason code in an acknowledgement of {@code type} (PUBACK, PUBREC, PUBREL,
     * PUBCOMP), e.g. {@code NOT_AUTHORIZED}; empty for a code MQTT 5 does not define there.
     */
    static String reasonName(int type, int code) {
        try {
            return switch (type) {
                case PUBACK -> MqttReasonCodes.PubAck.valueOf((byte) code).name();
                case PUBREC -> MqttReasonCodes.PubRec.valueOf((byte) code).name();
                case PUBREL -> MqttReasonCodes.PubRel.valueOf((byte) code).name();
                case PUBCOMP -> MqttReasonCodes.PubComp.valueOf((byte) code).name();
                case SUBACK -> MqttReasonCodes.SubAck.valueOf((byte) code).name();
                case DISCONNECT -> MqttReasonCodes.Disconnect.valueOf((byte) code).name();
                default -> "";
            };
        } catch (RuntimeException e) {
            return "";
        }
    }

    static String typeName(int type) {
        return type >= 1 && type <= 15 ? MqttMessageType.valueOf(type).name() : "reserved type " + type;
    }

    /**
     * The error path only: an MQTT 5 acknowledgement of a publish with a reason code of 0x80 or above, in words:
     * {@code MQTT broker at H refused a QoS 1 publish: PUBACK reason code 0x87 NOT_AUTHORIZED (text)}.
     */
    static String refusal(String address, int qos, int type, int reason, ByteBuf in, int start, int length) {
        String text = length > 3 ? reasonString(in, start + 3 + (int) (readVarInt(in, start + 3, start + length) & 7),
                start + length) : "";
        String code = typeName(type) + " reason code " + Fault.reasonCode(reason, reasonName(type, reason)) + text;
        return "MQTT broker at " + address + (type == PUBCOMP ? " failed a QoS 2 publish: "
                : " refused a QoS " + qos + " publish: ") + code;
    }
}
