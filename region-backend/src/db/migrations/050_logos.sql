-- Logo detection (_0000188): brands registered by the region's operator and the keypoints of their reference
-- artwork. Every backend process of the region loads the library from here.

CREATE TABLE logo_brands (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  -- label returned to Chinese-language callers; the English name when null
  name_zh text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX logo_brands_name ON logo_brands (lower(name));

CREATE TABLE logo_references (
  id bigserial PRIMARY KEY,
  brand_id bigint NOT NULL REFERENCES logo_brands (id) ON DELETE CASCADE,
  filename text NOT NULL DEFAULT '',
  -- the artwork as uploaded after orientation and size normalisation (PNG with alpha), kept so that features
  -- can be extracted again when the recipe changes
  image bytea NOT NULL,
  -- feature recipe of the columns below (logo-params.ts EXTRACTOR)
  extractor text NOT NULL,
  -- frame of the keypoints, and the artwork's rectangle in it (x0, y0, x1, y1)
  width integer NOT NULL,
  height integer NOT NULL,
  outline real[] NOT NULL,
  n_keypoints integer NOT NULL,
  -- float32 little-endian (x, y) per keypoint
  points bytea NOT NULL,
  -- 32-byte ORB descriptor per keypoint
  descriptors bytea NOT NULL,
  -- the artwork shrunk for the photometric check: grey bytes then coverage-mask bytes, template_width × template_height each
  template_width integer NOT NULL,
  template_height integer NOT NULL,
  template bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX logo_references_brand ON logo_references (brand_id);

-- Bumped in the same transaction as every change to the two tables above: processes compare it with the
-- version they hold and reload only when it moved.
CREATE TABLE logo_library (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version bigint NOT NULL DEFAULT 0
);
INSERT INTO logo_library DEFAULT VALUES;
