// Reading JSON back: the run summaries (<base>.summary.json) that `prof --compare` accepts. A small
// strict RFC 8259 parser into a tree; prof reads only its own small files with it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace prof::report {

class JsonValue {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Type type() const { return type_; }
  bool is_object() const { return type_ == Type::kObject; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_number() const { return type_ == Type::kNumber; }

  // Members and elements; a missing member is nullptr.
  const JsonValue* find(std::string_view key) const;
  const std::vector<JsonValue>& elements() const { return elements_; }
  const std::string& string() const { return text_; }
  double number() const { return number_; }
  // The number as an integer when it is one exactly (no fraction, in range); otherwise false.
  bool integer(int64_t& out) const;

  // Throws std::runtime_error("line L: what") on anything that is not one JSON value.
  static JsonValue parse(std::string_view text);

 private:
  friend class JsonParser;
  Type type_ = Type::kNull;
  bool boolean_ = false;
  double number_ = 0;
  std::string text_;  // a string's value; a number's literal
  std::vector<JsonValue> elements_;
  std::vector<std::pair<std::string, JsonValue>> members_;
};

}  // namespace prof::report
