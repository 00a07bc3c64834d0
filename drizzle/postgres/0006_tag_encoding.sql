CREATE TABLE "leaf_encoding" (
	"biz_tag" varchar(128) PRIMARY KEY NOT NULL,
	"encoding" varchar(16) NOT NULL,
	"key_id" varchar(16) NOT NULL
);
