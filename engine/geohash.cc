#include "engine/geohash.h"

#include <climits>
#include <cmath>

namespace kvlab::engine::geo {

namespace {

constexpr double kDR = M_PI / 180.0;
// Earth's quadratic mean radius for WGS-84 (geohash_helper.c).
constexpr double kEarthRadiusInMeters = 6372797.560856;
constexpr double kMercatorMax = 20037726.37;

double DegRad(double ang) { return ang * kDR; }
double RadDeg(double ang) { return ang / kDR; }

const Range kWgs84Long = {kLongMin, kLongMax};
const Range kWgs84Lat = {kLatMin, kLatMax};

// interleave64: the bits of x in the even positions, those of y in the odd ones.
uint64_t Interleave64(uint32_t xlo, uint32_t ylo) {
  static const uint64_t B[] = {0x5555555555555555ULL, 0x3333333333333333ULL, 0x0F0F0F0F0F0F0F0FULL,
                               0x00FF00FF00FF00FFULL, 0x0000FFFF0000FFFFULL};
  static const unsigned int S[] = {1, 2, 4, 8, 16};
  uint64_t x = xlo;
  uint64_t y = ylo;
  for (int i = 4; i >= 0; --i) {
    x = (x | (x << S[i])) & B[i];
    y = (y | (y << S[i])) & B[i];
  }
  return x | (y << 1);
}

// deinterleave64: the even bits in the low word, the odd ones in the high word.
uint64_t Deinterleave64(uint64_t interleaved) {
  static const uint64_t B[] = {0x5555555555555555ULL, 0x3333333333333333ULL, 0x0F0F0F0F0F0F0F0FULL,
                               0x00FF00FF00FF00FFULL, 0x0000FFFF0000FFFFULL, 0x00000000FFFFFFFFULL};
  static const unsigned int S[] = {0, 1, 2, 4, 8, 16};
  uint64_t x = interleaved;
  uint64_t y = interleaved >> 1;
  for (int i = 0; i <= 5; ++i) {
    x = (x | (x >> S[i])) & B[i];
    y = (y | (y >> S[i])) & B[i];
  }
  return x | (y << 32);
}

bool Decode(const Range& long_range, const Range& lat_range, const HashBits& hash, Area* area) {
  if (hash.IsZero()) return false;
  area->hash = hash;
  const uint8_t step = hash.step;
  const uint64_t hash_sep = Deinterleave64(hash.bits);  // [LAT][LONG]
  const double lat_scale = lat_range.max - lat_range.min;
  const double long_scale = long_range.max - long_range.min;
  const uint32_t ilato = static_cast<uint32_t>(hash_sep);
  const uint32_t ilono = static_cast<uint32_t>(hash_sep >> 32);
  area->latitude.min = lat_range.min + (ilato * 1.0 / (1ull << step)) * lat_scale;
  area->latitude.max = lat_range.min + ((ilato + 1) * 1.0 / (1ull << step)) * lat_scale;
  area->longitude.min = long_range.min + (ilono * 1.0 / (1ull << step)) * long_scale;
  area->longitude.max = long_range.min + ((ilono + 1) * 1.0 / (1ull << step)) * long_scale;
  return true;
}

// geohashDecodeAreaToLongLat.
void AreaToLongLat(const Area& area, double* xy) {
  xy[0] = (area.longitude.min + area.longitude.max) / 2;
  if (xy[0] > kLongMax) xy[0] = kLongMax;
  if (xy[0] < kLongMin) xy[0] = kLongMin;
  xy[1] = (area.latitude.min + area.latitude.max) / 2;
  if (xy[1] > kLatMax) xy[1] = kLatMax;
  if (xy[1] < kLatMin) xy[1] = kLatMin;
}

void MoveX(HashBits* hash, int d) {
  if (d == 0) return;
  uint64_t x = hash->bits & 0xaaaaaaaaaaaaaaaaULL;
  const uint64_t y = hash->bits & 0x5555555555555555ULL;
  const uint64_t zz = 0x5555555555555555ULL >> (64 - hash->step * 2);
  if (d > 0) {
    x = x + (zz + 1);
  } else {
    x = x | zz;
    x = x - (zz + 1);
  }
  x &= (0xaaaaaaaaaaaaaaaaULL >> (64 - hash->step * 2));
  hash->bits = x | y;
}

void MoveY(HashBits* hash, int d) {
  if (d == 0) return;
  const uint64_t x = hash->bits & 0xaaaaaaaaaaaaaaaaULL;
  uint64_t y = hash->bits & 0x5555555555555555ULL;
  const uint64_t zz = 0xaaaaaaaaaaaaaaaaULL >> (64 - hash->step * 2);
  if (d > 0) {
    y = y + (zz + 1);
  } else {
    y = y | zz;
    y = y - (zz + 1);
  }
  y &= (0x5555555555555555ULL >> (64 - hash->step * 2));
  hash->bits = x | y;
}

HashBits Moved(HashBits hash, int dx, int dy) {
  MoveX(&hash, dx);
  MoveY(&hash, dy);
  return hash;
}

// geohashEstimateStepsByRadius.
uint8_t EstimateStepsByRadius(double range_meters, double lat) {
  if (range_meters == 0) return 26;
  int step = 1;
  while (range_meters < kMercatorMax) {
    range_meters *= 2;
    step++;
  }
  step -= 2;  // make sure the range is included in most of the base cases
  // Wider cells towards the poles.
  if (lat > 66 || lat < -66) {
    step--;
    if (lat > 80 || lat < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > 26) step = 26;
  return static_cast<uint8_t>(step);
}

// geohashBoundingBox.
void BoundingBox(const Shape& shape, double* bounds) {
  const double longitude = shape.xy[0];
  const double latitude = shape.xy[1];
  const bool circle = shape.type == Shape::Type::kCircle;
  const double height = shape.conversion * (circle ? shape.radius : shape.height / 2);
  const double width = shape.conversion * (circle ? shape.radius : shape.width / 2);
  const double lat_delta = RadDeg(height / kEarthRadiusInMeters);
  const double long_delta_top =
      RadDeg(width / kEarthRadiusInMeters / cos(DegRad(latitude + lat_delta)));
  const double long_delta_bottom =
      RadDeg(width / kEarthRadiusInMeters / cos(DegRad(latitude - lat_delta)));
  // The hemispheres bend the box's edges opposite ways.
  const bool southern = latitude < 0;
  bounds[0] = southern ? longitude - long_delta_bottom : longitude - long_delta_top;
  bounds[2] = southern ? longitude + long_delta_bottom : longitude + long_delta_top;
  bounds[1] = latitude - lat_delta;
  bounds[3] = latitude + lat_delta;
}

// geohashGetLatDistance.
double LatDistance(double lat1d, double lat2d) {
  return kEarthRadiusInMeters * fabs(DegRad(lat2d) - DegRad(lat1d));
}

// (uint64_t) of a double as gcc compiles it for x86-64 (cvttsd2si, with 2^63 subtracted first
// from values at or above it): an out-of-range conversion gives 0x8000000000000000 (so a
// negative score -k converts to 2^64 - k, and +inf or anything at or above 2^64 to 0).
uint64_t X86DoubleToU64(double d) {
  const double two63 = 9223372036854775808.0;
  auto cvtt = [](double v) -> uint64_t {
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return 1ULL << 63;
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  };
  if (!(d >= two63)) return cvtt(d);
  return cvtt(d - two63) ^ (1ULL << 63);
}

}  // namespace

bool Encode(const Range& long_range, const Range& lat_range, double longitude, double latitude,
            uint8_t step, HashBits* hash) {
  if (step > 32 || step == 0) return false;
  if ((lat_range.max == 0 && lat_range.min == 0) || (long_range.max == 0 && long_range.min == 0)) {
    return false;
  }
  if (longitude > kLongMax || longitude < kLongMin || latitude > kLatMax || latitude < kLatMin) {
    return false;
  }
  hash->bits = 0;
  hash->step = step;
  if (latitude < lat_range.min || latitude > lat_range.max || longitude < long_range.min ||
      longitude > long_range.max) {
    return false;
  }
  double lat_offset = (latitude - lat_range.min) / (lat_range.max - lat_range.min);
  double long_offset = (longitude - long_range.min) / (long_range.max - long_range.min);
  // Fixed point at the step's precision.
  lat_offset *= static_cast<double>(1ULL << step);
  long_offset *= static_cast<double>(1ULL << step);
  hash->bits = Interleave64(static_cast<uint32_t>(lat_offset), static_cast<uint32_t>(long_offset));
  return true;
}

bool EncodeWgs84(double longitude, double latitude, uint8_t step, HashBits* hash) {
  return Encode(kWgs84Long, kWgs84Lat, longitude, latitude, step, hash);
}

bool DecodeWgs84(const HashBits& hash, Area* area) {
  return Decode(kWgs84Long, kWgs84Lat, hash, area);
}

uint64_t Align52Bits(const HashBits& hash) { return hash.bits << (52 - hash.step * 2); }

double ScoreOf(double longitude, double latitude) {
  HashBits hash;
  EncodeWgs84(longitude, latitude, kStepMax, &hash);
  return static_cast<double>(Align52Bits(hash));
}

bool DecodeScore(double score, double xy[2]) {
  HashBits hash;
  hash.bits = X86DoubleToU64(score);
  hash.step = kStepMax;
  Area area;
  if (!DecodeWgs84(hash, &area)) return false;
  AreaToLongLat(area, xy);
  return true;
}

double Distance(double lon1d, double lat1d, double lon2d, double lat2d) {
  const double lon1r = DegRad(lon1d);
  const double lon2r = DegRad(lon2d);
  const double v = sin((lon2r - lon1r) / 2);
  // Equal longitudes: the distance along the meridian, without the expensive terms.
  if (v == 0.0) return LatDistance(lat1d, lat2d);
  const double lat1r = DegRad(lat1d);
  const double lat2r = DegRad(lat2d);
  const double u = sin((lat2r - lat1r) / 2);
  const double a = u * u + cos(lat1r) * cos(lat2r) * v * v;
  return 2.0 * kEarthRadiusInMeters * asin(sqrt(a));
}

bool WithinShape(const Shape& shape, double x, double y, double* distance) {
  if (shape.type == Shape::Type::kCircle) {
    *distance = Distance(shape.xy[0], shape.xy[1], x, y);
    return *distance <= shape.radius * shape.conversion;
  }
  // geohashGetDistanceIfInRectangle: the latitude test first, it is the cheaper one.
  const double width_m = shape.width * shape.conversion;
  const double height_m = shape.height * shape.conversion;
  if (LatDistance(y, shape.xy[1]) > height_m / 2) return false;
  if (Distance(x, y, shape.xy[0], y) > width_m / 2) return false;
  *distance = Distance(shape.xy[0], shape.xy[1], x, y);
  return true;
}

SearchCells CellsForShape(Shape* shape) {
  BoundingBox(*shape, shape->bounds);
  const double min_lon = shape->bounds[0], min_lat = shape->bounds[1];
  const double max_lon = shape->bounds[2], max_lat = shape->bounds[3];
  const double longitude = shape->xy[0], latitude = shape->xy[1];
  // A box's radius is the distance from its centre to a corner.
  double radius_meters = shape->type == Shape::Type::kCircle
                             ? shape->radius
                             : sqrt((shape->width / 2) * (shape->width / 2) +
                                    (shape->height / 2) * (shape->height / 2));
  radius_meters *= shape->conversion;

  int steps = EstimateStepsByRadius(radius_meters, latitude);
  HashBits hash;
  Area area;
  auto neighbours = [&](HashBits c) {
    // north, south, east, west, north-east, north-west, south-east, south-west
    return SearchCells{{c, Moved(c, 0, 1), Moved(c, 0, -1), Moved(c, 1, 0), Moved(c, -1, 0),
                        Moved(c, 1, 1), Moved(c, -1, 1), Moved(c, 1, -1), Moved(c, -1, -1)}};
  };
  EncodeWgs84(longitude, latitude, static_cast<uint8_t>(steps), &hash);
  SearchCells cells = neighbours(hash);
  DecodeWgs84(hash, &area);

  // Near a cell's edge the estimated step may leave part of the shape outside the neighbours:
  // then one step coarser.
  bool decrease_step = false;
  {
    Area north, south, east, west;
    DecodeWgs84(cells.cells[1], &north);
    DecodeWgs84(cells.cells[2], &south);
    DecodeWgs84(cells.cells[3], &east);
    DecodeWgs84(cells.cells[4], &west);
    if (north.latitude.max < max_lat) decrease_step = true;
    if (south.latitude.min > min_lat) decrease_step = true;
    if (east.longitude.max < max_lon) decrease_step = true;
    if (west.longitude.min > min_lon) decrease_step = true;
  }
  if (steps > 1 && decrease_step) {
    steps--;
    EncodeWgs84(longitude, latitude, static_cast<uint8_t>(steps), &hash);
    cells = neighbours(hash);
    DecodeWgs84(hash, &area);
  }

  // Drop the neighbours the shape cannot reach.
  if (steps >= 2) {
    HashBits* c = cells.cells;
    const HashBits zero;
    if (area.latitude.min < min_lat) c[2] = c[8] = c[7] = zero;   // south, SW, SE
    if (area.latitude.max > max_lat) c[1] = c[5] = c[6] = zero;   // north, NE, NW
    if (area.longitude.min < min_lon) c[4] = c[8] = c[6] = zero;  // west, SW, NW
    if (area.longitude.max > max_lon) c[3] = c[7] = c[5] = zero;  // east, SE, NE
  }
  return cells;
}

void ScoresOfCell(const HashBits& hash, uint64_t* min, uint64_t* max) {
  *min = Align52Bits(hash);
  HashBits next = hash;
  next.bits++;
  *max = Align52Bits(next);
}

bool StandardGeohash(double score, std::string* out) {
  static const char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  double xy[2];
  if (!DecodeScore(score, xy)) return false;
  // Redis's latitude range is [-85, 85]; the standard geohash's is [-90, 90]: re-encode.
  HashBits hash;
  Encode(Range{-180, 180}, Range{-90, 90}, xy[0], xy[1], 26, &hash);
  out->assign(11, '0');
  for (int i = 0; i < 11; ++i) {
    // 52 bits give 10 characters; the 11th, for compatibility, is always '0'.
    const int idx = i == 10 ? 0 : static_cast<int>((hash.bits >> (52 - ((i + 1) * 5))) & 0x1f);
    (*out)[static_cast<size_t>(i)] = kAlphabet[idx];
  }
  return true;
}

std::string FormatDistance(double d) {
  if (d == 0) return "0.0000";
  const long long svalue = llrint(d * 10000.0);
  unsigned long long value;
  std::string sign;
  if (svalue < 0) {
    value = svalue != LLONG_MIN ? static_cast<unsigned long long>(-svalue)
                                : static_cast<unsigned long long>(LLONG_MAX) + 1;
    sign = "-";
  } else {
    value = static_cast<unsigned long long>(svalue);
  }
  std::string digits = std::to_string(value);
  if (digits.size() < 5) digits.insert(0, 5 - digits.size(), '0');
  digits.insert(digits.size() - 4, 1, '.');
  return sign + digits;
}

}  // namespace kvlab::engine::geo
