// Redis 7.0's geohash, ported from geohash.c, geohash_helper.c and the score helpers of geo.c:
// a position is a 52-bit interleaved geohash (26 bits of latitude over [-85.05112878,
// 85.05112878], 26 of longitude over [-180, 180]) stored as the zset score; a search covers its
// shape with a cell and its 8 neighbours, each a score range [min, max) of the zset. Every
// formula, constant and rounding is Redis's, so that scores, positions, distances and the cells
// searched are bit for bit what Redis computes (a search finds what Redis's finds, and a distance
// prints the same "%.4f").
#pragma once

#include <cstdint>
#include <string>

namespace kvlab::engine::geo {

inline constexpr int kStepMax = 26;  // 26 * 2 = 52 bits
inline constexpr double kLatMin = -85.05112878;
inline constexpr double kLatMax = 85.05112878;
inline constexpr double kLongMin = -180;
inline constexpr double kLongMax = 180;

struct HashBits {
  uint64_t bits = 0;
  uint8_t step = 0;
  bool IsZero() const { return bits == 0 && step == 0; }
};

struct Range {
  double min = 0, max = 0;
};

struct Area {
  HashBits hash;
  Range longitude, latitude;
};

// GeoShape: a circle (radius) or an axis-aligned box (width, height) around xy, in the unit
// whose size in meters is `conversion`.
struct Shape {
  enum class Type { kCircle, kBox } type = Type::kCircle;
  double xy[2] = {0, 0};            // longitude, latitude
  double conversion = 1;            // meters per unit
  double bounds[4] = {0, 0, 0, 0};  // min lon, min lat, max lon, max lat (set by the search)
  double radius = 0;
  double width = 0, height = 0;
};

// The 9 cells of a search: the centre first, then north, south, east, west, north-east,
// north-west, south-east, south-west (membersOfAllNeighbors's order). A zeroed cell is not
// searched.
struct SearchCells {
  HashBits cells[9];
};

// geohashEncode over Redis's WGS84 ranges. False (and a zero hash) outside them.
bool EncodeWgs84(double longitude, double latitude, uint8_t step, HashBits* hash);
// geohashEncode over explicit ranges (GEOHASH re-encodes over [-90, 90]).
bool Encode(const Range& long_range, const Range& lat_range, double longitude, double latitude,
            uint8_t step, HashBits* hash);
// geohashDecode over the WGS84 ranges. False for a zero hash.
bool DecodeWgs84(const HashBits& hash, Area* area);
// geohashAlign52Bits.
uint64_t Align52Bits(const HashBits& hash);

// The score GEOADD stores for a position: the 52-bit hash at step 26, as a double.
double ScoreOf(double longitude, double latitude);
// decodeGeohash: the position a score stands for, clamped to the ranges. The score is
// converted to an unsigned 64-bit integer as Redis's x86-64 build does (scores no GEOADD wrote,
// negative or beyond 2^64, included), so that GEOPOS of any zset member agrees with Redis.
bool DecodeScore(double score, double xy[2]);

// geohashGetDistance: haversine over Redis's earth radius, in meters.
double Distance(double lon1, double lat1, double lon2, double lat2);
// geoWithinShape: whether (x, y) is in the shape; *distance is its distance to the centre, in
// meters.
bool WithinShape(const Shape& shape, double x, double y, double* distance);

// geohashCalculateAreasByShapeWGS84 (sets shape->bounds), as the 9 cells membersOfAllNeighbors
// searches.
SearchCells CellsForShape(Shape* shape);
// scoresOfGeoHashBox: the zset scores [*min, *max) of the points inside cell `hash`.
void ScoresOfCell(const HashBits& hash, uint64_t* min, uint64_t* max);

// The 11-character standard geohash GEOHASH replies for a score; false when it does not decode.
bool StandardGeohash(double score, std::string* out);

// fixedpoint_d2string(d, 4): the text of a distance ("%.4f" rounded as llrint).
std::string FormatDistance(double d);

}  // namespace kvlab::engine::geo
