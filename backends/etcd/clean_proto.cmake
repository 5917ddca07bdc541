# Writes a copy of one of etcd's .proto files without its gogoproto and google.api annotations,
# which only steer Go code generation and the HTTP gateway, so that protoc needs neither
# gogo.proto nor googleapis. Run as: cmake -DIN=<source> -DOUT=<copy> -P clean_proto.cmake
file(READ "${IN}" text)
string(REGEX REPLACE "import \"gogoproto/gogo.proto\";" "" text "${text}")
string(REGEX REPLACE "import \"google/api/annotations.proto\";" "" text "${text}")
string(REGEX REPLACE "option \\(gogoproto\\.[a-z_]+\\) = [a-z]+;" "" text "${text}")
string(REGEX REPLACE "option \\(google\\.api\\.http\\) = {([^{}]|{[^{}]*})*};" "" text "${text}")
string(REGEX REPLACE "\\[\\(gogoproto\\.[^]]*\\]" "" text "${text}")
if(text MATCHES "gogoproto|google\\.api")
  message(FATAL_ERROR "${IN}: annotations left after cleaning")
endif()
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
