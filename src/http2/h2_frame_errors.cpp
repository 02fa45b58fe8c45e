// Words for rejected frames (see h2_frame_errors.hpp).
//
// Ownership: pure functions; any thread.

#include "http2/h2_frame_errors.hpp"

#include <cstdio>
#include <string>

namespace sluice {
namespace {

constexpr std::uint32_t kMaxWindow = 2147483647u;  // 2^31-1, RFC 9113 6.9.1
constexpr std::uint32_t kMinFrameSize = 16384;
constexpr std::uint32_t kMaxFrameSize = 16777215;

std::string setting_name(std::int32_t id) {
  switch (id) {
    case NGHTTP2_SETTINGS_HEADER_TABLE_SIZE: return "SETTINGS_HEADER_TABLE_SIZE";
    case NGHTTP2_SETTINGS_ENABLE_PUSH: return "SETTINGS_ENABLE_PUSH";
    case NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS: return "SETTINGS_MAX_CONCURRENT_STREAMS";
    case NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE: return "SETTINGS_INITIAL_WINDOW_SIZE";
    case NGHTTP2_SETTINGS_MAX_FRAME_SIZE: return "SETTINGS_MAX_FRAME_SIZE";
    case NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE: return "SETTINGS_MAX_HEADER_LIST_SIZE";
    case NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL: return "SETTINGS_ENABLE_CONNECT_PROTOCOL";
    case NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES: return "SETTINGS_NO_RFC7540_PRIORITIES";
    default: return "setting " + std::to_string(id);
  }
}

// The first entry RFC 9113 6.5.2 (and RFC 8441, RFC 9218) forbids, or empty.
std::string bad_setting(const nghttp2_settings& settings) {
  for (std::size_t i = 0; i < settings.niv; ++i) {
    const nghttp2_settings_entry& entry = settings.iv[i];
    const std::string head = setting_name(entry.settings_id) + " of " + std::to_string(entry.value);
    switch (entry.settings_id) {
      case NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE:
        if (entry.value > kMaxWindow) {
          return head + " is over the largest flow-control window, " + std::to_string(kMaxWindow);
        }
        break;
      case NGHTTP2_SETTINGS_MAX_FRAME_SIZE:
        if (entry.value < kMinFrameSize || entry.value > kMaxFrameSize) {
          return head + " is outside " + std::to_string(kMinFrameSize) + ".." +
                 std::to_string(kMaxFrameSize);
        }
        break;
      case NGHTTP2_SETTINGS_ENABLE_PUSH:
        if (entry.value != 0) return head + ": a server may not enable push";
        break;
      case NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL:
      case NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES:
        if (entry.value > 1) return head + " is neither 0 nor 1";
        break;
      default: break;
    }
  }
  return {};
}

std::string describe_settings(const nghttp2_frame& frame, int lib_error_code) {
  if ((frame.hd.flags & NGHTTP2_FLAG_ACK) != 0) {
    return frame.hd.length != 0 ? "a SETTINGS acknowledgement must be empty"
                                : "an acknowledgement of SETTINGS sluice never sent";
  }
  std::string bad = bad_setting(frame.settings);
  return bad.empty() ? nghttp2_strerror(lib_error_code) : bad;
}

std::string describe_window_update(const nghttp2_frame& frame, int lib_error_code) {
  const std::int32_t increment = frame.window_update.window_size_increment;
  if (increment == 0) return "an increment of 0";
  if (lib_error_code == NGHTTP2_ERR_FLOW_CONTROL) {
    return "an increment of " + std::to_string(increment) + " pushes the " +
           (frame.hd.stream_id == 0 ? "connection's" : "stream's") + " send window past " +
           std::to_string(kMaxWindow);
  }
  return nghttp2_strerror(lib_error_code);
}

}  // namespace

std::string h2_frame_type_name(std::uint8_t type) {
  switch (type) {
    case NGHTTP2_DATA: return "DATA";
    case NGHTTP2_HEADERS: return "HEADERS";
    case NGHTTP2_PRIORITY: return "PRIORITY";
    case NGHTTP2_RST_STREAM: return "RST_STREAM";
    case NGHTTP2_SETTINGS: return "SETTINGS";
    case NGHTTP2_PUSH_PROMISE: return "PUSH_PROMISE";
    case NGHTTP2_PING: return "PING";
    case NGHTTP2_GOAWAY: return "GOAWAY";
    case NGHTTP2_WINDOW_UPDATE: return "WINDOW_UPDATE";
    case NGHTTP2_CONTINUATION: return "CONTINUATION";
    default: break;
  }
  char text[32];
  std::snprintf(text, sizeof text, "frame type 0x%02x", static_cast<unsigned>(type));
  return text;
}

std::uint32_t h2_code_for_library_error(int lib_error_code) {
  switch (lib_error_code) {
    case NGHTTP2_ERR_FLOW_CONTROL: return NGHTTP2_FLOW_CONTROL_ERROR;
    case NGHTTP2_ERR_FRAME_SIZE_ERROR: return NGHTTP2_FRAME_SIZE_ERROR;
    case NGHTTP2_ERR_STREAM_CLOSED: return NGHTTP2_STREAM_CLOSED;
    case NGHTTP2_ERR_REFUSED_STREAM: return NGHTTP2_REFUSED_STREAM;
    case NGHTTP2_ERR_HEADER_COMP: return NGHTTP2_COMPRESSION_ERROR;
    default: return NGHTTP2_PROTOCOL_ERROR;
  }
}

std::string describe_invalid_frame(const nghttp2_frame& frame, int lib_error_code) {
  switch (frame.hd.type) {
    case NGHTTP2_SETTINGS: return describe_settings(frame, lib_error_code);
    case NGHTTP2_WINDOW_UPDATE: return describe_window_update(frame, lib_error_code);
    case NGHTTP2_GOAWAY:
      return "last stream id " + std::to_string(frame.goaway.last_stream_id) +
             " is higher than an earlier GOAWAY's or names no stream sluice opened";
    default: return nghttp2_strerror(lib_error_code);
  }
}

}  // namespace sluice
